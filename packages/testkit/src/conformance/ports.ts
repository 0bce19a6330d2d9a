import assert from "node:assert/strict";
import type { ExecRequest, SandboxHandle } from "@sandport/core";
import { unusedPort } from "../assertions/index.js";
import type { CheckGroup } from "./suite.js";

/** The default server: Python's, serving the command's working directory on 127.0.0.1. */
export function defaultHttpServer(port: number): ExecRequest {
  return { argv: ["python3", "-m", "http.server", String(port), "--bind", "127.0.0.1"] };
}

/**
 * Registers `ports.http`: a server started in the sandbox (by `startCommand`
 * or `spawn`) is reached from the test process through `portEndpoint`, with
 * the endpoint's headers, and serves a file written with `writeFiles`.
 */
export function declarePortChecks<H extends SandboxHandle>(group: CheckGroup<H>): void {
  const { runtime, suite } = group;
  const caps = suite.capabilities;
  const canStart = caps.asyncExec === true || caps.interactive === true;
  group.check(
    "ports.http",
    async () => {
      const port = await unusedPort();
      const handle = await suite.launch({ ports: [port] });
      const body = `served from the sandbox ${suite.token}\n`;
      await runtime.writeFiles(handle, [{ path: "site/probe.txt", content: body }]);
      const server = { ...suite.httpServer(port), cwd: "site" };
      const process =
        caps.asyncExec === true
          ? void (await runtime.startCommand!(handle, { ...server, sessionId: `http-${suite.token}` }))
          : await runtime.spawn!(handle, server);
      try {
        const endpoint = await runtime.portEndpoint!(handle, port);
        assert.match(endpoint.url, /^https?:\/\/[^/]+$/, "a base URL without a trailing slash");
        let answer: string | undefined;
        const deadline = Date.now() + suite.timeouts.testMs / 2;
        while (answer === undefined) {
          try {
            const response = await fetch(`${endpoint.url}/probe.txt`, { headers: { ...endpoint.headers } });
            if (response.status === 200) answer = await response.text();
            else await response.body?.cancel();
          } catch {
            // The server is still starting.
          }
          if (answer === undefined) {
            assert.ok(Date.now() < deadline, "the server never answered through its endpoint");
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        }
        assert.equal(answer, body, "the endpoint reaches the sandbox's server");
      } finally {
        await process?.kill();
        await suite.destroy(handle);
      }
    },
    {
      unavailable:
        caps.ports !== true
          ? `ports is ${caps.ports}`
          : canStart
            ? undefined
            : "neither asyncExec nor interactive: nothing can keep a server running",
    },
  );
}
