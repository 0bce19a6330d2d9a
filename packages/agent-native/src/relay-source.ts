/**
 * The relay that runs the module inside the sandbox, as Node ESM source
 * (`node relay.mjs <bridgePort> <tunnelPort> <probePort> <module>`, the
 * tunnel token in `SANDPORT_TUNNEL_TOKEN`, the probe's question and answer in
 * `SANDPORT_PROBE_QUESTION` and `SANDPORT_PROBE_ANSWER`).
 *
 * First it asks the host's `LoopbackProbe` at 127.0.0.1:probePort: when the
 * probe answers, the sandbox shares the host's loopback, where the host's own
 * bridge holds bridgePort, so the relay listens on nothing and runs the
 * module at once, its bridge calls going straight to the host's bridge.
 * Otherwise it listens on the sandbox's 127.0.0.1:bridgePort,
 * where the module calls its bridge, and on 127.0.0.1:tunnelPort, which the
 * host reaches through the runtime's port forwarding: the host long-polls
 * `GET /next` for the module's requests and answers each with
 * `POST /reply/<id>`. Once both listen it runs the module as its child, in
 * the same process tree and so the same network namespace (a runtime may
 * give each command its own), with the environment it was given less the
 * token and the output passed straight through, and exits as the module did.
 * The sandbox's own network is never opened; every tunnel request must carry
 * the token in `x-sandport-tunnel`. A port it cannot listen on ends it with
 * exit code 1 and a line on stderr saying which, before the module runs.
 */
export const RELAY_SOURCE = String.raw`import { spawn } from "node:child_process";
import http from "node:http";
const [bridgePort, tunnelPort, probePort] = process.argv.slice(2, 5).map(Number);
const modulePath = process.argv[5];
const token = process.env.SANDPORT_TUNNEL_TOKEN;
const probeQuestion = process.env.SANDPORT_PROBE_QUESTION;
const probeAnswer = process.env.SANDPORT_PROBE_ANSWER;
const moduleEnv = { ...process.env };
delete moduleEnv.SANDPORT_TUNNEL_TOKEN;
delete moduleEnv.SANDPORT_PROBE_QUESTION;
delete moduleEnv.SANDPORT_PROBE_ANSWER;
const queued = [];
const polls = [];
const held = new Map();
let nextId = 1;
let listening = 0;
const json = (res, status, value) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
};
const hand = (request) => {
  const poll = polls.shift();
  if (!poll) return queued.push(request);
  clearTimeout(poll.timer);
  json(poll.res, 200, request);
};
const runModule = () => {
  const child = spawn(process.execPath, [modulePath], { stdio: "inherit", env: moduleEnv });
  child.on("exit", (code, signal) => {
    if (signal) process.kill(process.pid, signal);
    process.exit(code ?? 1);
  });
};
const ready = () => {
  if (++listening === 2) runModule();
};
const unlistenable = (port) => (error) => {
  process.stderr.write("sandport relay: cannot listen on 127.0.0.1:" + port + " in the sandbox (" + (error.code ?? error.message) + "), so the module was not run\n");
  process.exit(1);
};
const sharesHostLoopback = async () => {
  try {
    const response = await fetch("http://127.0.0.1:" + probePort + "/", {
      headers: { "x-sandport-probe": probeQuestion },
      signal: AbortSignal.timeout(2000),
    });
    return response.ok && (await response.text()) === probeAnswer;
  } catch {
    return false;
  }
};
if (await sharesHostLoopback()) runModule();
else listen();
function listen() {
http
  .createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const id = String(nextId++);
      held.set(id, res);
      res.on("close", () => held.delete(id));
      const body = Buffer.concat(chunks).toString("base64");
      hand({ id, method: req.method, path: req.url, headers: req.headers, body });
    });
  })
  .on("error", unlistenable(bridgePort))
  .listen(bridgePort, "127.0.0.1", ready);
http
  .createServer((req, res) => {
    if (!token || req.headers["x-sandport-tunnel"] !== token) return json(res, 403, { error: "no tunnel token" });
    if (req.url === "/ready") return json(res, 200, { ready: true });
    if (req.method === "GET" && req.url === "/next") {
      const request = queued.shift();
      if (request) return json(res, 200, request);
      const poll = { res, timer: setTimeout(() => { res.writeHead(204); res.end(); }, 15000) };
      polls.push(poll);
      res.on("close", () => {
        clearTimeout(poll.timer);
        const at = polls.indexOf(poll);
        if (at >= 0) polls.splice(at, 1);
      });
      return;
    }
    const reply = /^\/reply\/(\d+)$/.exec(req.url ?? "");
    if (req.method !== "POST" || !reply) return json(res, 404, { error: "unknown tunnel path" });
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const target = held.get(reply[1]);
      if (!target) return json(res, 410, { error: "the module stopped waiting" });
      const answer = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      target.writeHead(answer.status, answer.headers);
      target.end(Buffer.from(answer.body, "base64"));
      json(res, 200, { delivered: true });
    });
  })
  .on("error", unlistenable(tunnelPort))
  .listen(tunnelPort, "127.0.0.1", ready);
}
`;
