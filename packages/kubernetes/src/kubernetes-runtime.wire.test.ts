// KubernetesRuntime end to end against the cluster emulator, over both data planes.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, test } from "node:test";
import { emulated, kubernetesSkip } from "../test/emulated.js";

describe("KubernetesRuntime end to end", { skip: kubernetesSkip }, async () => {
  const { runtimeWith, emulator } = await emulated({ owner: "wire" });

  for (const dataPlane of ["sandboxd", "pod-exec"] as const) {
    describe(`over ${dataPlane}`, () => {
      const runtime = runtimeWith({ dataPlane, routerUrl: emulator.routerUrl });

      test("launch, files, exec with stdin, streaming, lookups and destroy", async () => {
        const handle = await runtime.launch({ labels: { job: "wire 1/é" } });
        await runtime.writeFiles(handle, [
          { path: "in/a.txt", content: "a" },
          { path: "bin.dat", content: Uint8Array.of(0, 255, 10) },
        ]);
        assert.equal((await runtime.exec(handle, { argv: ["cat", "in/a.txt"] })).stdout, "a");
        assert.deepEqual([...(await runtime.readFile(handle, "bin.dat"))], [0, 255, 10]);
        const piped = await runtime.exec(handle, { shell: "tr a-z A-Z; echo err >&2; exit 3", stdin: "hello" });
        assert.deepEqual([piped.exitCode, piped.stdout, piped.stderr], [3, "HELLO", "err\n"]);
        const events = [];
        for await (const event of runtime.execStream(handle, { shell: "echo one; echo two" })) events.push(event.type);
        assert.equal(events[0], "started");
        assert.equal(events.at(-1), "exited");
        assert.deepEqual(
          (await runtime.findByLabels({ job: "wire 1/é" })).map((found) => found.id),
          [handle.id],
        );
        assert.equal((await runtime.getById(handle.id))?.labels.job, "wire 1/é");
        await runtime.mkdir(handle, "made/deep");
        assert.ok((await runtime.listDir(handle, "made")).some((entry) => entry.name === "deep"));
        assert.equal((await runtime.stat(handle, "in/a.txt")).size, 1);
        await runtime.remove(handle, "made");
        await runtime.destroy(handle);
        assert.equal(await runtime.getById(handle.id), undefined);
        assert.deepEqual(await runtime.settle(), []);
      });

      test("a file larger than a WebSocket message the API server takes (64 MiB) is written whole", async () => {
        const handle = await runtime.launch();
        try {
          const content = new Uint8Array(65 * 1024 * 1024 + 3);
          for (let index = 0; index < content.length; index += 4093) content[index] = index % 251;
          await runtime.writeFiles(handle, [{ path: "big.dat", content }]);
          const digest = createHash("sha256").update(content).digest("hex");
          const result = await runtime.exec(handle, { shell: "wc -c < big.dat; sha256sum big.dat" });
          assert.equal(result.stdout, `${content.length}\n${digest}  big.dat\n`);
        } finally {
          await runtime.destroy(handle);
        }
      });
    });
  }
});
