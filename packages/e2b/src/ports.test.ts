// portEndpoint through the real e2b SDK against the E2B emulator: a server
// spawned in the sandbox, reached from here through the endpoint the runtime
// gives (the emulator's sandbox URL with routing headers, or the hosted
// <port>-<id>.<domain> form), undeclared ports, refusals and private sandboxes.
import assert from "node:assert/strict";
import { request } from "node:http";
import { test } from "node:test";
import type { PortEndpoint, SandboxProcess } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import * as e2b from "e2b";
import { emulated } from "../test/emulated.js";
import { E2BRuntime } from "./e2b-runtime.js";
import type { E2BHandle } from "./handle.js";
import type { E2BConnectionFields, E2BSdkModule } from "./internal/sdk-types.js";

const { emulator, runtime, runtimeWith } = await emulated({ owner: "port-tests" });

/**
 * Python's HTTP server on a port the system picks, serving `served.txt` from
 * the workspace; resolves with the port once it listens (spawn's stdout says which).
 */
async function serve(
  on: E2BRuntime,
  handle: E2BHandle,
  body: string,
): Promise<{ port: number; server: SandboxProcess }> {
  await on.writeFiles(handle, [{ path: "served.txt", content: body }]);
  const server = await on.spawn(handle, { argv: ["python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1"] });
  let text = "";
  for await (const event of server.events) {
    if (event.type === "stdout") text += event.data;
    const port = /port (\d+)/.exec(text)?.[1];
    if (port) return { port: Number(port), server };
  }
  throw new Error(`the server never said where it listens: ${JSON.stringify(text)}`);
}

/** GET `path` from an endpoint, its headers included, or with `headers` instead. */
async function get(endpoint: PortEndpoint, path: string, headers = endpoint.headers) {
  const response = await fetch(`${endpoint.url}${path}`, { headers: { ...headers } });
  return { status: response.status, body: await response.text() };
}

test("the endpoint of an undeclared port reaches the sandbox's server: E2B needs no declaration", async () => {
  const handle = await runtime.launch();
  const { port, server } = await serve(runtime, handle, "hello through the port\n");
  emulator.resetRequests();
  const endpoint = await runtime.portEndpoint(handle, port);
  assert.equal(emulator.countRequests(), 0, "a sandbox launched here needs no request");
  assert.deepEqual(endpoint, {
    url: emulator.sandboxUrl,
    headers: { "E2b-Sandbox-Id": handle.id, "E2b-Sandbox-Port": String(port) },
  });
  assert.deepEqual(await get(endpoint, "/served.txt"), { status: 200, body: "hello through the port\n" });
  await server.kill();
  assert.equal((await get(endpoint, "/served.txt")).status, 502, "nothing listens there any more");
});

test("declared ports are accepted and change nothing; envd's port and non-ports are refused before any request", async () => {
  const handle = await runtime.launch({ ports: [3000, 8080] });
  const { port, server } = await serve(runtime, handle, "declared or not\n");
  assert.equal((await get(await runtime.portEndpoint(handle, port), "/served.txt")).status, 200);
  await server.kill();
  emulator.resetRequests();
  await expectCode(runtime.launch({ ports: [49983] }), "INVALID_REQUEST");
  await expectCode(runtime.launch({ ports: [80, 80] }), "INVALID_REQUEST");
  const envd = await expectCode(runtime.portEndpoint(handle, 49983), "INVALID_REQUEST");
  assert.match(envd.message, /envd/);
  for (const bad of [0, 65_536, 80.5, "80"]) {
    await expectCode(runtime.portEndpoint(handle, bad as number), "INVALID_REQUEST", String(bad));
  }
  await expectCode(runtime.portEndpoint({ ...handle, id: "a/b" }, 80), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(), 0);
});

test("a private sandbox: the endpoint carries its traffic token, and the edge refuses requests without it", async () => {
  const privateRuntime = runtimeWith({ allowPublicTraffic: false });
  const handle = await privateRuntime.launch();
  const { port, server } = await serve(privateRuntime, handle, "for token holders\n");
  const endpoint = await privateRuntime.portEndpoint(handle, port);
  const token = endpoint.headers?.["e2b-traffic-access-token"];
  assert.match(token ?? "", /^[0-9a-f]{32}$/);
  assert.deepEqual(await get(endpoint, "/served.txt"), { status: 200, body: "for token holders\n" });
  const { "e2b-traffic-access-token": _token, ...routing } = endpoint.headers ?? {};
  const refused = await get(endpoint, "/served.txt", routing);
  assert.equal(refused.status, 403);
  assert.match(refused.body, /traffic access token/);
  // Another runtime reattaching by id learns the token from its connect.
  const reattached = runtimeWith({ allowPublicTraffic: false });
  const found = await reattached.getById(handle.id);
  assert.ok(found);
  assert.deepEqual(await reattached.portEndpoint(found, port), endpoint);
  await server.kill();
  await privateRuntime.destroy(handle);
});

test("a private launch that comes back public (an SDK before 2.7 drops the setting) is refused and destroyed", async () => {
  const dropsNetwork: E2BSdkModule = {
    Sandbox: {
      create: (template, options) => {
        const { network: _dropped, ...older } = options;
        return e2b.Sandbox.create(template, older);
      },
      connect: (id, options) => e2b.Sandbox.connect(id, options),
      kill: (id, options) => e2b.Sandbox.kill(id, options),
      getInfo: (id, options) => e2b.Sandbox.getInfo(id, options),
      pause: (id, options) => e2b.Sandbox.pause(id, options),
      list: (options) => e2b.Sandbox.list(options),
    },
  };
  const older = runtimeWith({ allowPublicTraffic: false, sdk: dropsNetwork, owner: "port-tests-older" });
  const refused = await expectCode(older.launch(), "UNSUPPORTED");
  assert.match(refused.message, /public/);
  assert.deepEqual(await older.settle(), []);
  const left = emulator.liveSandboxes().filter((sandbox) => sandbox.metadata["sandport.owner"] === "port-tests-older");
  assert.deepEqual(left, [], "the public sandbox was destroyed");
});

test("without a sandboxUrl, the endpoint is the sandbox's own host, https://<port>-<id>.<domain>", async () => {
  // The SDK itself is pointed at the emulator; the runtime is told nothing of it.
  const viaEmulator = <O extends E2BConnectionFields>(options: O): O => ({
    ...options,
    sandboxUrl: emulator.sandboxUrl,
  });
  const sdk: E2BSdkModule = {
    Sandbox: {
      create: (template, options) => e2b.Sandbox.create(template, viaEmulator(options)),
      connect: (id, options) => e2b.Sandbox.connect(id, viaEmulator(options)),
      kill: (id, options) => e2b.Sandbox.kill(id, options),
      getInfo: (id, options) => e2b.Sandbox.getInfo(id, options),
      pause: (id, options) => e2b.Sandbox.pause(id, options),
      list: (options) => e2b.Sandbox.list(options),
    },
  };
  const hosted = new E2BRuntime({
    apiKey: emulator.apiKey,
    apiUrl: emulator.apiUrl,
    domain: emulator.domain,
    owner: "port-tests",
    sdk,
  });
  const handle = await hosted.launch();
  const { port, server } = await serve(hosted, handle, "by host name\n");
  const endpoint = await hosted.portEndpoint(handle, port);
  const host = `${port}-${handle.id}.${emulator.domain}`;
  assert.deepEqual(endpoint, { url: `https://${host}` });
  // That name resolves nowhere here: ask the emulator's edge with it as the Host, as DNS would lead there.
  const edge = new URL(emulator.sandboxUrl);
  const answer = await new Promise<string>((resolve, reject) => {
    const sent = request(
      { host: edge.hostname, port: edge.port, path: "/served.txt", headers: { host } },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          body += chunk;
        });
        response.on("end", () => resolve(body));
      },
    );
    sent.on("error", reject);
    sent.end();
  });
  assert.equal(answer, "by host name\n");
  await server.kill();
  await hosted.destroy(handle);
});
