// Reads once a command has run, over both data planes, counted through the
// cluster emulator: one guarded command prints a small file (over pod exec,
// any file); sandboxd downloads a file past 256 KiB after that command.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated, kubernetesSkip } from "../test/emulated.js";

const START = "rpc process.v1.ProcessService/Start";
const DOWNLOAD = "router GET /v1/files/*";
const POD_EXEC = "GET /api/v1/namespaces/:namespace/pods/:name/exec";

describe("readFile where a command has run", { skip: kubernetesSkip }, async () => {
  const { runtimeWith, emulator } = await emulated({ owner: "files-wire" });
  const routes = () => emulator.requests.map((request) => request.route);
  for (const [dataPlane, command, large] of [
    ["sandboxd", [START], [START, DOWNLOAD]],
    ["pod-exec", [POD_EXEC], [POD_EXEC]],
  ] as const) {
    test(`over ${dataPlane}: one command reads a small file; a large one costs ${large.length}`, async () => {
      const runtime = runtimeWith({ dataPlane, routerUrl: emulator.routerUrl });
      const handle = await runtime.launch();
      try {
        const content = new Uint8Array(256 * 1024 + 1).fill(7);
        await runtime.writeFiles(handle, [
          { path: "small.bin", content: Uint8Array.of(0, 255, 10) },
          { path: "large.bin", content },
        ]);
        await runtime.exec(handle, { shell: "ln -s /etc escape" });
        emulator.resetRequests();
        assert.deepEqual([...(await runtime.readFile(handle, "small.bin"))], [0, 255, 10]);
        assert.deepEqual(routes(), command, "one command resolves, checks and prints the file");
        emulator.resetRequests();
        assert.deepEqual(await runtime.readFile(handle, "large.bin"), content);
        assert.deepEqual(routes(), large);
        emulator.resetRequests();
        const refused = await expectCode(runtime.readFile(handle, "large.bin", { maxBytes: 1000 }), "OUTPUT_LIMIT");
        assert.equal(refused.details.size, content.byteLength);
        assert.deepEqual(routes(), command, "refused on the size the command printed");
        await expectCode(runtime.readFile(handle, "escape/hostname"), "INVALID_REQUEST");
        await expectCode(runtime.readFile(handle, "missing.txt"), "NOT_FOUND");
      } finally {
        await runtime.destroy(handle);
      }
    });
  }
});
