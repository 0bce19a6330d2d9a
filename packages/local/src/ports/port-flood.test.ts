// One sandbox cannot use up the runtime's file descriptors through its ports: connections past the
// bounds are closed at once, and other sandboxes' commands keep working.
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { after, describe, test } from "node:test";
import { LocalRuntime } from "../index.js";
import { bwrapSkipReason, temporaryDirectory } from "../runtime.fixture.js";
import { MAX_CLIENTS_PER_PORT } from "./port-forwarder.js";
import { RELAY_PORTS_DIRECTORY } from "./port-relay-source.js";
import { MAX_RELAY_CONNECTIONS_PER_SANDBOX } from "./sandbox-ports.js";

const skipNamespaces = await bwrapSkipReason();
const root = temporaryDirectory("port-flood");
after(() => root.remove());

/** Descriptors this process has open. */
const openDescriptors = () => readdirSync("/proc/self/fd").length;

/** Connections the flood opens: well past the bound, well below the machine's descriptor limit. */
const FLOOD = MAX_RELAY_CONNECTIONS_PER_SANDBOX + 1_500;

/**
 * Opens `FLOOD` connections to the relays' socket of `port` and holds them; once the runtime closed all
 * but `MAX_RELAY_CONNECTIONS_PER_SANDBOX` of them, prints `flooded` and keeps the rest open.
 */
const flood = (port: number) => `
import resource, selectors, socket, sys, time
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
held = []
for _ in range(${FLOOD}):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect("${RELAY_PORTS_DIRECTORY}/${port}.sock")
    held.append(s)
selector = selectors.DefaultSelector()
for s in held:
    selector.register(s, selectors.EVENT_READ)
closed = 0
while closed < ${FLOOD - MAX_RELAY_CONNECTIONS_PER_SANDBOX}:
    for key, _ in selector.select():
        if key.fileobj.recv(1) == b"":
            selector.unregister(key.fileobj)
            closed += 1
print("flooded", closed, flush=True)
time.sleep(3600)
`;

describe("port floods", { skip: skipNamespaces, timeout: 120_000 }, () => {
  const runtime = new LocalRuntime({ root: root.path, killGraceMs: 100 });

  test("flooding one sandbox's relay socket leaves the descriptors bounded and another sandbox's exec working", async () => {
    const flooding = await runtime.launch({ ports: [8201] });
    const other = await runtime.launch();
    await runtime.portEndpoint(flooding, 8201);
    const before = openDescriptors();
    await runtime.writeFiles(flooding, [{ path: "flood.py", content: flood(8201) }]);
    const process = await runtime.spawn(flooding, { argv: ["python3", "flood.py"] });
    try {
      let output = "";
      for await (const event of process.events) {
        if (event.type === "stdout" || event.type === "stderr") output += event.data;
        if (event.type === "exited") assert.fail(`the flood ended early: ${output}`);
        if (output.includes("flooded")) break;
      }
      const during = openDescriptors();
      assert.ok(
        during - before <= MAX_RELAY_CONNECTIONS_PER_SANDBOX + 64,
        `the runtime holds ${during - before} more descriptors than before the flood`,
      );
      const result = await runtime.exec(other, { argv: ["echo", "still working"] });
      assert.equal(result.stdout, "still working\n");
      await runtime.writeFiles(other, [{ path: "written.txt", content: "yes" }]);
    } finally {
      await process.kill();
      await runtime.destroy(flooding);
      await runtime.destroy(other);
    }
  });

  test("clients past the bound of one port are closed at once", async () => {
    const handle = await runtime.launch({ ports: [8202] });
    const sockets: Socket[] = [];
    try {
      const { hostname, port } = new URL((await runtime.portEndpoint(handle, 8202)).url);
      const extra = 20;
      let closed = 0;
      // Resolves once the extra ones are closed: without the bound, none ever is.
      await new Promise<void>((resolve) => {
        for (let index = 0; index < MAX_CLIENTS_PER_PORT + extra; index++) {
          const socket = connect(Number(port), hostname);
          socket.on("error", () => {});
          socket.on("close", () => {
            closed++;
            if (closed === extra) resolve();
          });
          sockets.push(socket);
        }
      });
    } finally {
      for (const socket of sockets) socket.destroy();
      await runtime.destroy(handle);
    }
  });
});
