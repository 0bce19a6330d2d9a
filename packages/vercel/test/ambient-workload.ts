// The child process of ambient-env.wire.test.ts. It runs with no terminal on stdin, every
// variable the SDK reads set to a canary, and a fake Vercel CLI auth.json in its HOME and
// XDG_DATA_HOME; its global fetch sends every request that would leave the machine to the
// parent's trap. It runs a whole workload through VercelRuntime against a Vercel
// emulator, then arms the trap (the SDK called without credentials), and prints one JSON
// line: the emulator's requests of each phase and what the global fetch sent to the trap.
import { startVercelEmulator } from "@sandport/testkit/emulators/vercel";
import { Sandbox } from "@vercel/sandbox";
import { VercelRuntime } from "../src/vercel-runtime.js";

const trap = process.env.SANDPORT_TRAP_URL as string;
const platformFetch = globalThis.fetch;
/** What the global fetch sent to the trap, by phase. */
const trapped: { phase: string; url: string; authorization: string | null }[] = [];
let phase = "workload";

// Everything bound for another host goes to the trap instead (the emulator is on 127.0.0.1,
// and preview hosts are routed below fetch, to the emulator's proxy).
globalThis.fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (url.hostname === "127.0.0.1" || url.hostname.endsWith(".vercel.run") || url.protocol === "data:") {
    return platformFetch(input, init);
  }
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
  trapped.push({ phase, url: url.toString(), authorization: headers.get("authorization") });
  return platformFetch(`${trap}${url.pathname}${url.search}`, { ...init, headers });
};

const emulator = await startVercelEmulator();
const requestsOf = () =>
  emulator.requests.map((request) => ({ route: request.route, path: request.path, headers: request.headers }));
try {
  const options = { ...emulator.credentials, fetch: emulator.fetch, owner: "ambient" };
  const runtime = new VercelRuntime(options);
  const handle = await runtime.launch({ labels: { probe: "ambient" }, env: { FROM_LAUNCH: "1" }, ports: [4300] });
  await runtime.writeFiles(handle, [{ path: "in/a.txt", content: "a" }]);
  const cat = await runtime.exec(handle, { argv: ["cat", "in/a.txt"], stdin: "ignored" });
  for await (const _event of runtime.execStream(handle, { shell: "echo streamed" })) {
    // drain
  }
  const ref = await runtime.startCommand(handle, { sessionId: "ambient", shell: "echo async" });
  while ((await runtime.commandStatus(handle, ref)).state === "running") await new Promise((r) => setTimeout(r, 30));
  const logs = await runtime.commandLogs(handle, ref);
  const read = new TextDecoder().decode(await runtime.readFile(handle, "in/a.txt"));
  const found = await runtime.findByLabels({ probe: "ambient" });
  await runtime.portEndpoint(handle, 4300);
  await runtime.stop(handle);
  await runtime.start(handle);
  // A second instance reattaches (list, then get on first use).
  const reopened = new VercelRuntime(options);
  const again = await reopened.getById(handle.id);
  if (!again) throw new Error("getById lost the sandbox");
  await reopened.exec(again, { argv: ["true"] });
  await reopened.destroy(again);
  const workload = requestsOf();
  const results = {
    cat: cat.stdout,
    async: logs.stdout,
    read,
    found: found.length,
    left: emulator.liveSandboxes().length,
  };

  // Arming: the SDK left without credentials reads VERCEL_OIDC_TOKEN (expired here, so it refreshes it
  // with the CLI's auth.json and .vercel/project.json through the global fetch), then, with a fresh
  // token, sends that token to the API.
  phase = "armed";
  emulator.resetRequests();
  const expired = await Sandbox.list({ fetch: emulator.fetch }).then(
    () => "listed",
    (error: Error) => `${error.name}: ${error.message.split("\n")[0]}`,
  );
  process.env.VERCEL_OIDC_TOKEN = process.env.SANDPORT_FRESH_OIDC_TOKEN;
  const fresh = await Sandbox.list({ fetch: emulator.fetch }).then(
    () => "listed",
    (error: Error) => `${error.name}: ${error.message.split("\n")[0]}`,
  );
  const armed = { expired, fresh, requests: requestsOf() };
  console.log(
    JSON.stringify({
      stdinIsTTY: Boolean(process.stdin.isTTY),
      results,
      workload,
      armed,
      trapped,
      unknown: emulator.unknownRoutes,
    }),
  );
} finally {
  await emulator.stop();
}
