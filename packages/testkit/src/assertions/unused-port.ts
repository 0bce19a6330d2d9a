import { randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";

/** The lowest port {@link unusedPort} picks: clear of the well-known and commonly configured ones. */
const LOWEST = 10_000;
/** Linux's default ephemeral range, for a host that does not say its own. */
const DEFAULT_EPHEMERAL: readonly [number, number] = [32_768, 60_999];

/**
 * A TCP port nothing on this host listens on at the moment, for a server a
 * test starts in a sandbox. Sandboxes of some runtimes share the host's network
 * (local `isolation: "none"`, emulators on such a backend), so a fixed port
 * would collide between suites running side by side.
 *
 * The port is picked at random outside the kernel's ephemeral range (the
 * ports `listen(0)` and outgoing connections are given): between the pick and
 * the sandbox server's bind, the emulators and clients of other tests, which
 * take ephemeral ports all the time, cannot take it. Only a host whose
 * ephemeral range leaves nothing above {@link LOWEST} gets an ephemeral port.
 */
export async function unusedPort(): Promise<number> {
  const [low, high] = ephemeralRange();
  const below = Math.max(0, low - LOWEST);
  const above = Math.max(0, 65_535 - Math.max(high, LOWEST - 1));
  for (let attempt = 0; attempt < 50 && below + above > 0; attempt++) {
    const index = randomInt(below + above);
    const port = index < below ? LOWEST + index : Math.max(high, LOWEST - 1) + 1 + (index - below);
    if ((await bound(port)) !== undefined) return port;
  }
  const port = await bound(0);
  if (port === undefined) throw new Error("no TCP port could be bound on 127.0.0.1");
  return port;
}

/** The host's ephemeral port range, from `/proc/sys/net/ipv4/ip_local_port_range` where it has one. */
export function ephemeralRange(): readonly [number, number] {
  try {
    const [low, high] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "latin1")
      .trim()
      .split(/\s+/)
      .map(Number);
    if (Number.isInteger(low) && Number.isInteger(high) && (low as number) <= (high as number)) {
      return [low as number, high as number];
    }
  } catch {
    // Not Linux: its default is as good a guess as any.
  }
  return DEFAULT_EPHEMERAL;
}

/** Binds `port` on 127.0.0.1 and lets it go: the port bound (the kernel's pick for 0), or `undefined` when taken. */
async function bound(port: number): Promise<number | undefined> {
  const probe: Server = createServer();
  const listening = await new Promise<boolean>((resolve) => {
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => resolve(true));
  });
  if (!listening) return undefined;
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return typeof address === "object" && address !== null ? address.port : undefined;
}
