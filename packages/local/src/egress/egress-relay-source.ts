/** Where, inside the sandbox, the egress relay finds its directory (the host's, mounted read-only). */
export const EGRESS_DIRECTORY = "/run/sandport/egress";
/** Where, inside the sandbox, the egress relay finds the Node binary (the runtime's own, mounted read-only). */
export const EGRESS_NODE_PATH = "/run/sandport/egress-node";
/** The relay program's file name in the egress directory. */
export const EGRESS_RELAY_FILE = "egress-relay.cjs";
/** The port the relay listens on, on `127.0.0.1` in each command's own network namespace. */
export const EGRESS_PROXY_PORT = 3128;

/**
 * The relay started before every command of a sandbox with an allow list
 * (`node egress-relay.cjs <port> <socket> <ready>`, in the command's own
 * network namespace, which has only its loopback): it listens on
 * `127.0.0.1:<port>` and pipes each connection to the host's egress proxy
 * through the Unix socket `<socket>` (in a directory the sandbox sees
 * read-only). Once it listens it writes a line to `<ready>` (a FIFO the
 * command's shell waits on, so the command never starts before the proxy
 * address answers) and closes it. Ordinary tools reach it through the proxy
 * variables (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY` and their lower-case
 * forms).
 *
 * Plain CommonJS in a string, written to the egress directory at launch.
 */
export const EGRESS_RELAY_SOURCE = `
"use strict";
const net = require("node:net");
const fs = require("node:fs");
const [port, socket, ready] = process.argv.slice(2);
const server = net.createServer((client) => {
  const upstream = net.connect(socket);
  client.pipe(upstream);
  upstream.pipe(client);
  client.on("error", () => upstream.destroy());
  upstream.on("error", () => client.destroy());
});
server.listen(Number(port), "127.0.0.1", () => {
  fs.writeFileSync(ready, "ready\\n");
});
server.on("error", () => process.exit(1));
`;
