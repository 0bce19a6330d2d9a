// writeFiles on the pod-exec plane against the cluster emulator: a batch is
// one exec carrying an archive on its stdin, a single file its own exec; both
// exact, with modes, and guarded against symlinks that leave the workspace.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated, kubernetesSkip } from "../test/emulated.js";

describe("KubernetesRuntime writeFiles over pod exec", { skip: kubernetesSkip }, async () => {
  const { runtime, emulator } = await emulated({ owner: "files", dataPlane: "pod-exec" });

  test("20 files are one exec with the archive on its stdin; bytes and modes exact", async () => {
    const handle = await runtime.launch();
    const files = Array.from({ length: 20 }, (_, index) => ({
      path: `src/${index % 3}/f${String(index).padStart(2, "0")}.txt`,
      content: `${index}`.padEnd(1024, ".") as string | Uint8Array,
      ...(index === 7 ? { mode: 0o755 } : {}),
    }));
    const binary = Uint8Array.from({ length: 256 }, (_, index) => 255 - index);
    files[3] = { path: 'src/with space/it\'s "ü" $x.bin', content: binary };
    emulator.resetRequests();
    await runtime.writeFiles(handle, files);
    const routes = emulator.requests.map((request) => request.route);
    assert.equal(routes.length, 1, `one exec: ${routes.join(", ")}`);
    assert.deepEqual(await runtime.readFile(handle, 'src/with space/it\'s "ü" $x.bin'), binary);
    assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "src/1/f19.txt")), files[19]?.content);
    assert.equal((await runtime.stat(handle, "src/1/f07.txt")).mode, 0o755);
    assert.equal((await runtime.stat(handle, "src/2/f08.txt")).mode, 0o644);
    await runtime.destroy(handle);
  });

  test("a symlink out refuses the batch before the archive; a directory in the way is INVALID_REQUEST", async () => {
    const handle = await runtime.launch();
    await runtime.exec(handle, { shell: "ln -s /tmp out && mkdir taken" });
    const batch = ["a.txt", "out/escaped-by-archive.txt", "b.txt"].map((path) => ({ path, content: path }));
    await expectCode(runtime.writeFiles(handle, batch), "INVALID_REQUEST");
    const probe = await runtime.exec(handle, { shell: "test ! -e a.txt && test ! -e /tmp/escaped-by-archive.txt" });
    assert.equal(probe.exitCode, 0);
    await expectCode(
      runtime.writeFiles(handle, [
        { path: "taken", content: "x" },
        { path: "c.txt", content: "c" },
      ]),
      "INVALID_REQUEST",
    );
    await runtime.destroy(handle);
  });
});
