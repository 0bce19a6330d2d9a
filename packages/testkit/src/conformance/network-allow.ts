import assert from "node:assert/strict";
import { isAbsence, type LaunchSpec, type SandboxHandle } from "@sandport/core";
import { CONFORMANCE_EGRESS_NAMES, startEgressServers } from "./egress-probe.js";
import { type CheckGroup, GROUP_LABEL } from "./suite.js";

/**
 * Fetches `$1` and prints its body: Python's urllib (which honours the proxy
 * variables) where `python3` is present, else curl. Any failure (no route, a
 * proxy's 403, a name without an address) exits non-zero.
 */
const FETCH_SCRIPT = [
  "if command -v python3 >/dev/null 2>&1; then",
  `  exec python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' "$1"`,
  "fi",
  'exec curl --silent --show-error --fail --max-time 10 "$1"',
].join("\n");

/**
 * Registers `lifecycle.network-allow`: the declared `networkPolicy` holds
 * from inside a sandbox. Two servers on this machine's loopback stand for
 * the internet (`127.0.0.1` answers `allowed`, `127.0.0.2` answers
 * `denied`), and the fixture's runtime resolves the conformance names to
 * them (`RuntimeFixture.egressProbe`; see `conformanceEgressResolver`):
 *
 * - `domains`: an allow list naming `allowed.sandport.test` (and its address,
 *   which a domain entry alone does not open) fetches its body; the denied
 *   name fails;
 * - `cidr` (and `domains`): an allow list of `127.0.0.1/32` fetches
 *   `http://127.0.0.1:<port>/`; `127.0.0.2` fails;
 * - every mode with `"none"`: neither is reached.
 *
 * The allowed fetch must return the server's body, which no missing feature
 * can fake. `NO_PROXY` is emptied for the fetches so that an address
 * literal goes through the proxy too, where a runtime has one.
 */
export function declareNetworkAllowChecks<H extends SandboxHandle>(group: CheckGroup<H>): void {
  const { runtime, suite } = group;
  const declared = suite.capabilities.networkPolicy;
  const unavailable = isAbsence(declared)
    ? `networkPolicy is ${declared}: the runtime enforces no network policy`
    : suite.egressProbe
      ? undefined
      : "the fixture does not resolve the conformance names (RuntimeFixture.egressProbe): its runtime's egress cannot be pointed at this machine's test servers";
  group.check(
    "lifecycle.network-allow",
    async () => {
      const servers = await startEgressServers();
      try {
        const labels = { [GROUP_LABEL]: "lifecycle-network-allow" };
        const fetchIn = async (network: LaunchSpec["network"], urls: readonly string[]) => {
          const handle = suite.track(await runtime.launch(suite.specFor({ labels, network })));
          try {
            const results = [];
            for (const url of urls) {
              const result = await runtime.exec(handle, {
                argv: ["/bin/sh", "-c", FETCH_SCRIPT, "sh", url],
                env: { NO_PROXY: "", no_proxy: "" },
                timeoutMs: 20_000,
              });
              results.push({ url, ...result });
            }
            return results;
          } finally {
            await suite.destroy(handle);
          }
        };
        const reached = (result: { url: string; exitCode: number | null; stdout: string; stderr: string }) => {
          assert.equal(result.exitCode, 0, `${result.url} was not reached: ${result.stderr}`);
          assert.equal(result.stdout, "allowed", `${result.url} answered with the allowed server's body`);
        };
        const refused = (result: { url: string; exitCode: number | null; stdout: string }, why: string) => {
          assert.notEqual(result.exitCode, 0, `${result.url} was reached (${why})`);
          assert.doesNotMatch(result.stdout, /denied|allowed/, `${result.url} answered (${why})`);
        };
        const { allowed, denied } = CONFORMANCE_EGRESS_NAMES;
        const byName = [`http://${allowed}:${servers.allowedPort}/`, `http://${denied}:${servers.deniedPort}/`];
        const byAddress = [`http://127.0.0.1:${servers.allowedPort}/`, `http://127.0.0.2:${servers.deniedPort}/`];
        if (declared === "domains") {
          const [yes, no] = await fetchIn({ allow: [allowed, "127.0.0.1/32"] }, byName);
          reached(yes!);
          refused(no!, `${denied} is not in the allow list`);
        }
        if (declared === "domains" || declared === "cidr") {
          const [yes, no] = await fetchIn({ allow: ["127.0.0.1/32"] }, byAddress);
          reached(yes!);
          refused(no!, "127.0.0.2 lies outside 127.0.0.1/32");
        }
        for (const result of await fetchIn("none", [...byName, ...byAddress])) refused(result, 'network: "none"');
      } finally {
        await servers.close();
      }
    },
    { unavailable },
  );
}
