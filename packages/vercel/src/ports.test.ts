// portEndpoint through the real @vercel/sandbox SDK against the Vercel emulator: the
// `https://<subdomain>.vercel.run` address of a port declared at launch (the conformance
// suite's ports.http serves a file through it); an undeclared port is refused.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const GET = "GET /v2/sandboxes/:name";

const { emulator, runtime, runtimeWith } = await emulated({ owner: "ports-tests" });

test("a declared port's endpoint is its preview URL, from the routes of the create or of one get", async () => {
  const handle = await runtime.launch({ ports: [4100, 4101] });
  emulator.resetRequests();
  const endpoint = await runtime.portEndpoint(handle, 4101);
  assert.match(endpoint.url, /^https:\/\/sb-[a-z0-9]+-4101\.vercel\.run$/);
  assert.equal(endpoint.headers, undefined, "preview URLs need no headers");
  assert.equal(emulator.countRequests(), 0, "the routes came with the create");
  const again = await runtimeWith({}).portEndpoint(handle, 4101);
  assert.equal(again.url, endpoint.url, "another instance gets the same address");
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    ["GET /v2/sandboxes", GET],
    "an ownership check, then one get (which never resumes) for the routes",
  );
  assert.ok(!emulator.requests[1]?.path.includes("resume"));
  await runtime.destroy(handle);
});

test("an undeclared port is INVALID_REQUEST; a malformed one is refused before any request", async () => {
  const handle = await runtime.launch({ ports: [4100] });
  const refused = await expectCode(runtime.portEndpoint(handle, 4101), "INVALID_REQUEST");
  assert.match(refused.message, /not declared at launch/);
  emulator.resetRequests();
  for (const port of [0, 70_000, 1.5, Number.NaN])
    await expectCode(runtime.portEndpoint(handle, port), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(), 0);
  await runtime.destroy(handle);
});
