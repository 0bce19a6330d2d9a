// For the emulators' egress tests: the conformance suite's two loopback servers, the fetch a command
// runs inside an emulated sandbox, and the reason to skip where the backend cannot enforce an allow list.
import { type EgressServers, startEgressServers } from "../../conformance/egress-probe.js";
import { isolationSkipReason } from "./isolation.fixture.js";

export { CONFORMANCE_EGRESS_NAMES, conformanceEgressResolver } from "../../conformance/egress-probe.js";
export { type EgressServers, startEgressServers };

/**
 * A shell command that fetches `url` and prints its body (Python's urllib,
 * which honours the backend's proxy variables; `NO_PROXY` emptied so that an
 * address literal goes through the proxy too); it exits non-zero on any failure.
 */
export function fetchCommand(url: string): string {
  const script =
    "import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())";
  return `NO_PROXY= no_proxy= python3 -c '${script}' '${url}'`;
}

/**
 * `undefined` when the default emulator backend enforces allow lists here
 * (it runs under bubblewrap), else why the enforcement tests skip.
 */
export async function egressSkipReason(): Promise<string | undefined> {
  const reason = await isolationSkipReason();
  return reason === undefined ? undefined : `an allow list needs bubblewrap, which is unusable here: ${reason}`;
}
