// The harness provider's network policy: given when sandboxes are created, it is the launch's `network`, enforced
// by a real LocalRuntime (its egress proxy); a live change is the harness's own unsupported error, never a silent
// no-op; a policy the runtime or the port cannot enforce is refused before anything is launched.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import type { HarnessV1NetworkPolicy, HarnessV1NetworkSandboxSession } from "@ai-sdk/harness";
import { SandportError } from "@sandport/core";
import {
  type LocalTestRuntime,
  localTestRuntime,
  namespacesSkipReason,
  RecordingRuntime,
} from "@sandport/testkit/fakes";
import { createHarnessSandboxProvider } from "./harness-provider.js";

/** Network policies are enforced only under namespaces (`networkPolicy: "domains"`); without bubblewrap those tests skip. */
const namespacesOnly = await namespacesSkipReason();

/** Fetches a URL with Python's urllib (it honours the proxy variables): the body, `HTTP <code>`, or `FAIL <error>`. */
const FETCH = [
  "import sys, urllib.request, urllib.error",
  "try:",
  "    print(urllib.request.urlopen(sys.argv[1], timeout=20).read().decode())",
  "except urllib.error.HTTPError as error:",
  "    print('HTTP', error.code)",
  "except Exception as error:",
  "    print('FAIL', type(error).__name__)",
].join("\n");

const fetchIn = async (session: HarnessV1NetworkSandboxSession, url: string) =>
  (await session.run({ command: `python3 -c "$FETCH" '${url}'`, env: { FETCH } })).stdout.trim();

const unsupported = { name: "AI_HarnessCapabilityUnsupportedError" };

async function serve(body: string): Promise<{ server: Server; port: number }> {
  const server = createServer((_request, response) => response.end(body));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

describe("a network policy given at creation is the launch's, enforced by the runtime", {
  skip: namespacesOnly,
}, () => {
  let local: LocalTestRuntime;
  let runtime: LocalTestRuntime["runtime"];
  let allowed: { server: Server; port: number };
  before(async () => {
    // `*.test` names resolve to the host's loopback, where this test serves: the proxy dials them there.
    local = await localTestRuntime("ai-sdk-network", {
      egressResolver: async (host) => (host.endsWith(".test") ? ["127.0.0.1"] : []),
    });
    runtime = local.runtime;
    allowed = await serve("allowed");
  });
  after(async () => {
    allowed.server.close();
    await local.cleanup();
  });

  test("custom: allowedHosts are reached, other names refused; the same policy again is accepted, another refused", async () => {
    // The allowed name resolves to loopback, which the proxy dials only where a CIDR entry names it.
    const networkPolicy: HarnessV1NetworkPolicy = {
      mode: "custom",
      allowedHosts: [`allowed.test:${allowed.port}`],
      allowedCIDRs: ["127.0.0.1/32"],
    };
    const session = await createHarnessSandboxProvider({ runtime, networkPolicy }).createSession();
    try {
      assert.equal(await fetchIn(session, `http://allowed.test:${allowed.port}/`), "allowed");
      assert.equal(await fetchIn(session, `http://elsewhere.test:${allowed.port}/`), "HTTP 403");
      await session.setNetworkPolicy?.({
        mode: "custom",
        allowedCIDRs: ["127.0.0.1/32"],
        allowedHosts: [`ALLOWED.test:${allowed.port}`],
      });
      await assert.rejects(
        async () => await session.setNetworkPolicy?.({ mode: "allow-all" }),
        (error: Error) => {
          assert.equal(error.name, unsupported.name);
          assert.ok(SandportError.hasCode(error.cause, "UNSUPPORTED"));
          assert.match(error.message, /when it is launched/);
          return true;
        },
      );
      assert.equal(await fetchIn(session, `http://elsewhere.test:${allowed.port}/`), "HTTP 403", "still refused");
    } finally {
      await session.destroy();
    }
  });

  test("deny-all reaches nothing, not even the allowed name", async () => {
    const session = await createHarnessSandboxProvider({
      runtime,
      networkPolicy: { mode: "deny-all" },
    }).createSession();
    try {
      assert.match(await fetchIn(session, `http://allowed.test:${allowed.port}/`), /^FAIL /);
      await session.setNetworkPolicy?.({ mode: "deny-all" });
      await assert.rejects(
        async () => await session.setNetworkPolicy?.({ mode: "custom", allowedCIDRs: ["127.0.0.1/32"] }),
        unsupported,
      );
    } finally {
      await session.destroy();
    }
  });
});

test("a runtime that cannot enforce an allow list refuses it with the harness's error, nothing launched", async () => {
  // Under isolation "none" commands always have the host's network: the runtime enforces no policy.
  const local = await localTestRuntime("ai-sdk-network-none", { isolation: "none" });
  try {
    const provider = createHarnessSandboxProvider({
      runtime: local.runtime,
      networkPolicy: { mode: "custom", allowedHosts: ["api.example.com"] },
    });
    await assert.rejects(
      async () => await provider.createSession({ sessionId: "refused" }),
      (error: Error) => {
        assert.equal(error.name, unsupported.name);
        assert.ok(SandportError.hasCode(error.cause, "UNSUPPORTED"), "the runtime's refusal is the cause");
        return true;
      },
    );
    assert.deepEqual(await local.runtime.findByLabels({}), [], "no sandbox was created");
  } finally {
    await local.cleanup();
  }
});

test("deniedCIDRs cannot be enforced by an allow list: refused before any call", async () => {
  const runtime = new RecordingRuntime();
  const provider = createHarnessSandboxProvider({
    runtime,
    networkPolicy: { mode: "custom", allowedHosts: ["*.example.com"], deniedCIDRs: ["169.254.169.254/32"] },
  });
  await assert.rejects(
    async () => await provider.createSession({ sessionId: "s" }),
    (error: Error) => {
      assert.equal(error.name, unsupported.name);
      assert.match(error.message, /deniedCIDRs 169\.254\.169\.254\/32/);
      return true;
    },
  );
  assert.deepEqual(runtime.calls, []);
});

test("each harness policy becomes the launch's network; malformed policies are INVALID_REQUEST at construction", async () => {
  const launched = async (networkPolicy: HarnessV1NetworkPolicy) => {
    const runtime = new RecordingRuntime();
    await createHarnessSandboxProvider({ runtime, networkPolicy }).createSession();
    return (runtime.calls[0]?.args[0] as { network?: unknown } | undefined)?.network;
  };
  assert.equal(await launched({ mode: "allow-all" }), "all");
  assert.equal(await launched({ mode: "deny-all" }), "none");
  assert.deepEqual(
    await launched({
      mode: "custom",
      allowedHosts: ["*.Example.com:443"],
      allowedCIDRs: ["10.0.0.0/8"],
      deniedCIDRs: [],
    }),
    { allow: ["*.example.com:443", "10.0.0.0/8"] },
  );
  const runtime = new RecordingRuntime();
  const invalid = (networkPolicy: unknown, field?: string) =>
    assert.throws(
      () => createHarnessSandboxProvider({ runtime, networkPolicy: networkPolicy as HarnessV1NetworkPolicy }),
      (error) =>
        SandportError.hasCode(error, "INVALID_REQUEST") && (field === undefined || error.message.includes(field)),
    );
  invalid({ mode: "block-all" }, "mode");
  invalid({ mode: "custom" }, "allowedHosts or allowedCIDRs");
  invalid({ mode: "custom", allowedHosts: ["10.0.0.0/8"] }, "not a domain name");
  invalid({ mode: "custom", allowedCIDRs: ["example.com"] }, "not a CIDR range");
  invalid({ mode: "custom", allowedHosts: ["a.com"], allowedHost: ["b.com"] }, "allowedHosts");
  assert.throws(
    () => createHarnessSandboxProvider({ runtime, networkPolicy: { mode: "deny-all" }, launch: { network: "all" } }),
    (error) => SandportError.hasCode(error, "INVALID_REQUEST") && /not both/.test(error.message),
  );
  assert.deepEqual(runtime.calls, []);
});

test("setNetworkPolicy is refused, never a silent no-op, where the launch's policy is not known here", async () => {
  const runtime = new RecordingRuntime();
  // No policy given: the runtime's default, which the bridge does not know.
  const session = await createHarnessSandboxProvider({ runtime }).createSession({ sessionId: "adopted" });
  assert.equal(typeof session.setNetworkPolicy, "function");
  await assert.rejects(async () => await session.setNetworkPolicy?.({ mode: "deny-all" }), unsupported);
  // A sandbox found again by its session id was launched elsewhere, perhaps with another policy.
  const withPolicy = createHarnessSandboxProvider({ runtime, networkPolicy: { mode: "deny-all" } });
  const adopted = await withPolicy.createSession({ sessionId: "adopted" });
  assert.equal(adopted.id, session.id);
  await assert.rejects(async () => await adopted.setNetworkPolicy?.({ mode: "deny-all" }), unsupported);
  const resumed = await withPolicy.resumeSession?.({ sessionId: "adopted" });
  await assert.rejects(async () => await resumed?.setNetworkPolicy?.({ mode: "deny-all" }), unsupported);
  // The restricted view cannot change the network at all.
  assert.equal("setNetworkPolicy" in session.restricted(), false);
});
