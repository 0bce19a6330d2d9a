// What an emulated Daytona sandbox looks like from inside, through the real Daytona SDK on a
// provider-shaped backend: /home/daytona is real to commands, and a sandbox with networkBlockAll has its
// own loopback.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { unusedPort, waitFor } from "../../assertions/index.js";
import {
  bindScript,
  isolationSkipReason,
  probeScript,
  shapedBackend,
  sharedNamespacesSkipReason,
} from "../harness/isolation.fixture.js";
import { deleteAll, openClient } from "./client.fixture.js";
import { type DaytonaEmulator, startDaytonaEmulator } from "./emulator.js";
import { type DaytonaClient, type DaytonaSandbox, daytonaLatest } from "./sdk.fixture.js";

const sharedSkip = await sharedNamespacesSkipReason();

describe("an emulated Daytona sandbox looks like Daytona's machine", { skip: await isolationSkipReason() }, () => {
  let emulator: DaytonaEmulator;
  let backend: Awaited<ReturnType<typeof shapedBackend>>;
  let daytona: DaytonaClient;
  before(async () => {
    backend = await shapedBackend("/home/daytona");
    emulator = await startDaytonaEmulator({ backend: backend.runtime });
    daytona = openClient(daytonaLatest, emulator);
  });
  after(async () => {
    await deleteAll(emulator);
    await daytona[Symbol.asyncDispose]();
    await emulator.stop();
    await backend.dispose();
  });

  it("commands see /home/daytona as home and cwd: uploaded files are there, and back", async () => {
    const sandbox = await daytona.create();
    await sandbox.fs.uploadFile(Buffer.from("uploaded\n"), "/home/daytona/x");
    const result = await sandbox.process.executeCommand(
      'cat /home/daytona/x; pwd; echo "$HOME"; echo made > /home/daytona/y',
    );
    assert.equal(result.result, "uploaded\n/home/daytona\n/home/daytona\n");
    assert.equal((await sandbox.fs.downloadFile("/home/daytona/y")).toString(), "made\n");
    await sandbox.delete();
  });

  it("a port bound in one sandbox with networkBlockAll is not reachable from another (own loopback)", async () => {
    const port = await unusedPort();
    const [a, b] = await Promise.all([
      daytona.create({ networkBlockAll: true }),
      daytona.create({ networkBlockAll: true }),
    ]);
    await bindIn(a, port);
    assert.equal((await b.process.executeCommand(probeScript(port))).result, "closed\n");
    // Control: sandboxes with network share this machine's network, where the same probe finds the port.
    const [c, d] = await Promise.all([daytona.create(), daytona.create()]);
    await bindIn(c, port);
    assert.equal((await d.process.executeCommand(probeScript(port))).result, "open\n");
    await Promise.all([a, b, c, d].map((sandbox) => sandbox.delete()));
  });

  it("the commands of a sandbox with networkBlockAll share its loopback: a port a session bound is open to the next command", {
    skip: sharedSkip,
  }, async () => {
    const port = await unusedPort();
    const sandbox = await daytona.create({ networkBlockAll: true });
    await bindIn(sandbox, port);
    assert.equal((await sandbox.process.executeCommand(probeScript(port))).result, "open\n");
    await sandbox.delete();
  });
});

/** Starts {@link bindScript} in a session and resolves once it has bound (its marker file exists). */
async function bindIn(sandbox: DaytonaSandbox, port: number): Promise<void> {
  await sandbox.process.createSession("bind");
  await sandbox.process.executeSessionCommand("bind", { command: bindScript(port), runAsync: true });
  await waitFor(
    async () => (await sandbox.process.executeCommand(`test -e bound-${port} && echo yes`)).result === "yes\n",
    { what: "the port to be bound" },
  );
}
