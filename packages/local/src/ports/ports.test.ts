// Exposed ports: what a sandbox without network can and cannot reach once it declares ports.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, describe, test } from "node:test";
import { SandportError } from "@sandport/core";
import { LocalRuntime } from "../index.js";
import { bwrapSkipReason, temporaryDirectory } from "../runtime.fixture.js";

const skipNamespaces = await bwrapSkipReason();
const root = temporaryDirectory("ports");
after(() => root.remove());

describe("namespaces: declared ports without network", { skip: skipNamespaces }, () => {
  const runtime = new LocalRuntime({ root: root.path, isolation: "namespaces", killGraceMs: 100 });

  test("an undeclared port is refused; a bad port number is refused", async () => {
    const handle = await runtime.launch({ ports: [8001] });
    try {
      await assert.rejects(runtime.portEndpoint(handle, 8002), (error) => {
        assert.ok(SandportError.hasCode(error, "INVALID_REQUEST"));
        assert.match((error as Error).message, /not declared at launch/);
        return true;
      });
      for (const bad of [0, 70_000, 1.5, "80"]) {
        await assert.rejects(runtime.portEndpoint(handle, bad as number), (error) =>
          SandportError.hasCode(error, "INVALID_REQUEST"),
        );
      }
      await assert.rejects(runtime.launch({ ports: [8001, 8001] }), (error) =>
        SandportError.hasCode(error, "INVALID_REQUEST"),
      );
    } finally {
      await runtime.destroy(handle);
    }
  });

  test("the relay gives the sandbox no network: a host server stays unreachable from inside", async () => {
    const server = createServer((_request, response) => response.end("host"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const hostPort = (server.address() as AddressInfo).port;
    const handle = await runtime.launch({ ports: [8003] });
    try {
      const probe = `import socket\ns = socket.socket()\ns.settimeout(2)\ntry:\n  s.connect(("127.0.0.1", ${hostPort}))\n  print("reached")\nexcept OSError as error:\n  print("refused", error.errno)\n`;
      const result = await runtime.exec(handle, { argv: ["python3", "-c", probe] });
      assert.match(result.stdout, /^refused/, `the command reached the host: ${result.stdout}${result.stderr}`);
      // Control: the same probe under isolation "none" reaches it.
      const plain = new LocalRuntime({ root: root.path, isolation: "none" });
      const open = await plain.launch();
      try {
        const reached = await plain.exec(open, { argv: ["python3", "-c", probe] });
        assert.match(reached.stdout, /^reached/);
      } finally {
        await plain.destroy(open);
      }
    } finally {
      await runtime.destroy(handle);
      server.close();
    }
  });
});
