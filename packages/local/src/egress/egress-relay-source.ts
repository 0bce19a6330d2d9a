/** Where, inside the sandbox, the egress relay finds its directory (the host's, mounted read-only). */
export const EGRESS_DIRECTORY = "/run/sandport/egress";
/** Where, inside the sandbox, the egress relay finds the Node binary (the runtime's own, mounted read-only). */
export const EGRESS_NODE_PATH = "/run/sandport/egress-node";
/** The relay program's file name in the egress directory. */
export const EGRESS_RELAY_FILE = "egress-relay.cjs";
/** The port the relay listens on, on `127.0.0.1` in each command's own network namespace. */
export const EGRESS_PROXY_PORT = 3128;

/**
 * The egress relay: it listens on `127.0.0.1:<port>` in a sandbox's network
 * namespace (which has only its loopback) and pipes each connection to the
 * host's egress proxy through the Unix socket `<socket>` (in a directory the
 * sandbox sees read-only), or, when that proxy is gone (the runtime process
 * that started the relay exited), through another proxy socket of the same
 * directory (another runtime instance serving the sandbox). Ordinary tools
 * reach it through the proxy variables (`HTTP_PROXY`, `HTTPS_PROXY`,
 * `ALL_PROXY` and their lower-case forms). Three ways to run it:
 *
 * - `own <port> <socket> <ready>`: beside one command, in the command's own
 *   network namespace. Once it listens it writes a line to `<ready>` (a FIFO
 *   the command's shell waits on, so the command never starts before the
 *   proxy address answers) and closes it.
 * - `shared <port> <socket>`: before a command that shares its sandbox's
 *   network namespace (`namespaceScope: "sandbox"`). If nothing answers on
 *   the port it starts `serve` in a session of its own (out of the command's
 *   process group, without the command's marker variable, so the command's
 *   end does not take it along: it lives until the sandbox's PID namespace
 *   dies on destroy), and exits once the port answers (a concurrent first
 *   command's relay may be the one that got it).
 * - `serve <port> <socket>`: that sandbox-wide relay, every descriptor of
 *   its standard input and output on `/dev/null`.
 *
 * Plain CommonJS in a string, written to the egress directory at launch.
 */
export const EGRESS_RELAY_SOURCE = `
"use strict";
const net = require("node:net");
const fs = require("node:fs");
const path = require("node:path");
const { spawn } = require("node:child_process");
const [mode, port, socket, ready] = process.argv.slice(2);

function proxies() {
  let others = [];
  try {
    others = fs.readdirSync(path.dirname(socket)).filter((name) => name.endsWith(".sock"));
  } catch {}
  return [socket, ...others.map((name) => path.join(path.dirname(socket), name)).filter((other) => other !== socket)];
}

function connectFirst(candidates, done) {
  if (candidates.length === 0) return done(undefined);
  const upstream = net.connect(candidates[0]);
  upstream.once("error", () => connectFirst(candidates.slice(1), done));
  upstream.once("connect", () => {
    upstream.removeAllListeners("error");
    done(upstream);
  });
}

function serve(onListening, onError) {
  const server = net.createServer((client) => {
    let closed = false;
    client.on("error", () => client.destroy());
    client.on("close", () => (closed = true));
    connectFirst(proxies(), (upstream) => {
      if (!upstream) return client.destroy();
      // The client left while the proxy was being reached (a launcher's probe does).
      if (closed) return upstream.destroy();
      client.pipe(upstream);
      upstream.pipe(client);
      upstream.on("error", () => client.destroy());
      client.on("close", () => upstream.destroy());
    });
  });
  server.on("error", onError);
  server.listen(Number(port), "127.0.0.1", onListening);
}

function answers() {
  return new Promise((resolve) => {
    const probe = net.connect(Number(port), "127.0.0.1");
    probe.once("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.once("error", () => resolve(false));
  });
}

async function launch() {
  if (await answers()) return;
  const env = { ...process.env };
  delete env.SANDPORT_LOCAL_COMMAND_ID;
  const child = spawn(process.execPath, [__filename, "serve", port, socket], { detached: true, stdio: "ignore", env });
  child.once("error", () => {});
  child.unref();
  // Until the port answers: this relay once it listens, or a concurrent first command's, which then got the port.
  for (let round = 0; round < 2000 && !(await answers()); round++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

if (mode === "own") {
  serve(() => fs.writeFileSync(ready, "ready\\n"), () => process.exit(1));
} else if (mode === "serve") {
  serve(() => {}, () => process.exit(1));
} else if (mode === "shared") {
  launch().then(() => process.exit(0), () => process.exit(1));
} else {
  process.exit(2);
}
`;
