// Network allow lists through the real Daytona SDKs against the emulator: what
// the create carries, what is refused before any request, and a sandbox the
// oldest SDK creates without its domainAllowList, which is deleted and refused.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LAUNCH_KEY_LABEL } from "@sandport/core";
import { expectCode, waitFor } from "@sandport/testkit/assertions";
import { namespacesSkipReason } from "@sandport/testkit/fakes";
import { emulated, OLDEST } from "../test/emulated.js";

const CREATE = "POST /api/sandbox";
const unisolated = await namespacesSkipReason();

const newest = await emulated({ owner: "network-tests" });
const oldest = await emulated({ owner: "network-tests-oldest" }, OLDEST);

test("an allow list is sent as networkAllowList and domainAllowList, networkBlockAll false", {
  skip: unisolated === undefined ? undefined : `${unisolated} (the emulator enforces an allow list with bubblewrap)`,
}, async () => {
  const handle = await newest.runtime.launch({
    network: { allow: ["API.example.com", "203.0.113.0/24", "*.example.org"] },
  });
  const response = await fetch(`${newest.emulator.apiUrl}/sandbox/${handle.id}`, {
    headers: { authorization: `Bearer ${newest.emulator.apiKey}` },
  });
  const stored = (await response.json()) as Record<string, unknown>;
  assert.deepEqual(
    [stored.networkBlockAll, stored.networkAllowList, stored.domainAllowList],
    [false, "203.0.113.0/24", "api.example.com,*.example.org"],
  );
  await newest.runtime.destroy(handle);
});

test("entries Daytona cannot express are refused before any request, naming the entry", async () => {
  newest.emulator.resetRequests();
  for (const entry of ["2001:db8::/32", "api.example.com:443", "localhost"]) {
    const error = await expectCode(newest.runtime.launch({ network: { allow: [entry] } }), "UNSUPPORTED");
    assert.ok(error.message.includes(JSON.stringify(entry)), error.message);
  }
  assert.deepEqual(
    newest.emulator.requests.filter((request) => request.route === CREATE),
    [],
    "no create was sent",
  );
});

test("with @daytonaio/sdk 0.180, which drops domainAllowList, a name is refused and the sandbox created without it deleted", async () => {
  const error = await expectCode(
    oldest.runtime.launch({ network: { allow: ["example.com"] }, launchKey: "dropped-names" }),
    "UNSUPPORTED",
  );
  assert.match(error.message, /older than 0\.216/);
  const made = () =>
    oldest.emulator
      .liveSandboxes()
      .filter((sandbox) => sandbox.metadata[LAUNCH_KEY_LABEL] === "dropped-names" && sandbox.state !== "destroying");
  await waitFor(() => made().length === 0, { timeoutMs: 10_000, what: "the sandbox without its list to be deleted" });
});
