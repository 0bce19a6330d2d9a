/** Where, inside the sandbox, the port relay finds the Node binary and its ports directory. */
export const RELAY_NODE_PATH = "/run/sandport/node";
/** See {@link RELAY_NODE_PATH}: the host's ports directory of the sandbox, mounted read-only. */
export const RELAY_PORTS_DIRECTORY = "/run/sandport/ports";
/** The relay program's file name in the ports directory. */
export const RELAY_FILE = "relay.cjs";
/** The host asks a tunnel to open with this byte; the relay answers it (connected) or {@link TUNNEL_REFUSED}. */
export const TUNNEL_OPEN = 1;
/** The relay's answer when nothing listens on the port in its command's network namespace. */
export const TUNNEL_REFUSED = 0;

/**
 * The relay that runs beside every command of a sandbox with declared ports
 * and no network (`node relay.cjs <port>...`, started in the command's own
 * network namespace). For each port it keeps one idle connection to the
 * host's Unix socket `<ports directory>/<port>.sock` (in a directory the
 * sandbox sees read-only, so nothing in it can redirect the host). When the
 * host writes `TUNNEL_OPEN`, the relay connects to `127.0.0.1:<port>` inside,
 * answers `TUNNEL_OPEN` (then pipes both ways) or `TUNNEL_REFUSED`, and opens
 * a new idle connection. The sandbox gets no network: only connections the
 * host opens reach it, and only to the declared ports.
 *
 * Plain CommonJS in a string, written to the ports directory at launch.
 */
export const RELAY_SOURCE = `
"use strict";
const net = require("node:net");
const directory = ${JSON.stringify(RELAY_PORTS_DIRECTORY)};
for (const port of process.argv.slice(2).map(Number)) idle(port);
function idle(port) {
  let used = false;
  let retried = false;
  const retry = () => {
    if (used || retried) return;
    retried = true;
    setTimeout(() => idle(port), 200);
  };
  const tunnel = net.connect(directory + "/" + port + ".sock");
  tunnel.on("error", retry);
  tunnel.on("close", retry);
  tunnel.once("data", (first) => {
    used = true;
    tunnel.pause();
    idle(port);
    if (first[0] !== ${TUNNEL_OPEN}) return tunnel.destroy();
    const rest = first.subarray(1);
    const target = net.connect(port, "127.0.0.1");
    let connected = false;
    target.once("connect", () => {
      connected = true;
      tunnel.write(Buffer.from([${TUNNEL_OPEN}]));
      if (rest.length > 0) target.write(rest);
      tunnel.pipe(target);
      target.pipe(tunnel);
      tunnel.resume();
    });
    target.on("error", () => (connected ? tunnel.destroy() : tunnel.end(Buffer.from([${TUNNEL_REFUSED}]))));
    target.on("close", () => tunnel.end());
    tunnel.on("close", () => target.destroy());
  });
}
`;
