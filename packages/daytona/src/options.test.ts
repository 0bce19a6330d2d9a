import assert from "node:assert/strict";
import { test } from "node:test";
import { SandportError } from "@sandport/core";
import { type DaytonaRuntimeOptions, DEFAULT_DAYTONA_TIMEOUTS, resolveOptions } from "./options.js";

function refusal(options: unknown): SandportError {
  try {
    resolveOptions(options as DaytonaRuntimeOptions);
  } catch (error) {
    assert.ok(SandportError.hasCode(error, "INVALID_REQUEST"), String(error));
    return error;
  }
  return assert.fail(`accepted ${JSON.stringify(options)}`);
}

test("defaults: every field the SDK would take from DAYTONA_* is explicit", () => {
  const resolved = resolveOptions({ apiKey: "key" });
  assert.deepEqual(resolved.credentials, { apiKey: "key" });
  assert.equal(resolved.apiUrl, "https://app.daytona.io/api");
  assert.equal(resolved.target, "us");
  assert.deepEqual(
    [resolved.autoStopMinutes, resolved.autoArchiveMinutes, resolved.autoDeleteMinutes],
    [15, 10_080, -1],
  );
  assert.equal(resolved.network, true);
  assert.deepEqual(resolved.volumes, []);
  assert.equal(resolved.workspaceRoot, "/home/daytona/workspace");
  assert.equal(resolved.commandStateDirectory, "/home/daytona/.sandport");
  assert.equal(resolved.readinessProbeMs, 30_000);
  assert.equal(resolved.listPageSize, 100);
  assert.equal(resolved.owner, "sandport");
  assert.deepEqual(resolved.timeouts, DEFAULT_DAYTONA_TIMEOUTS);
  assert.equal(resolved.snapshot, undefined);
  assert.equal(resolved.image, undefined);
});

test("credentials: an API key, or a JWT with its organization, never both and never neither", () => {
  assert.deepEqual(resolveOptions({ jwtToken: "jwt", organizationId: "org" }).credentials, {
    jwtToken: "jwt",
    organizationId: "org",
  });
  assert.match(refusal({}).message, /apiKey is required, or jwtToken with organizationId/);
  assert.match(refusal({ apiKey: "" }).message, /apiKey must be a non-empty string/);
  assert.match(
    refusal({ apiKey: "k", jwtToken: "j", organizationId: "o" }).message,
    /jwtToken cannot be given with apiKey/,
  );
  assert.match(refusal({ jwtToken: "j" }).message, /organizationId is required with jwtToken/);
});

test("every other option is checked, and refused with its name", () => {
  const cases: [Partial<DaytonaRuntimeOptions> | Record<string, unknown>, RegExp][] = [
    [{ apiUrl: "ftp://x" }, /apiUrl must be http/],
    [{ target: 3 }, /target must be a non-empty string/],
    [{ snapshot: "s", image: "i" }, /image cannot be given with snapshot/],
    [{ resources: { cpu: 2 } }, /resources apply only to sandboxes built from an image/],
    [{ image: "node:22", resources: { cpu: 1.5 } }, /resources\.cpu must be an integer/],
    [{ autoStopMinutes: -1 }, /autoStopMinutes must be an integer from 0/],
    [{ autoDeleteMinutes: -2 }, /autoDeleteMinutes must be an integer from -1/],
    [{ network: "no" }, /network must be a boolean/],
    [{ volumes: [{ volumeId: "v" }] }, /volumes\[0\]\.mountPath is required/],
    [{ volumes: [{ volumeId: "v", mountPath: "data" }] }, /volumes\[0\]\.mountPath must be an absolute path/],
    [{ workspaceRoot: "/home/../etc" }, /workspaceRoot/],
    [{ listPageSize: 201 }, /listPageSize must be an integer from 1 to 200/],
    // Replaced by the explicit DaytonaRuntime.recreate: start never changes a sandbox's identity.
    [{ recreateOnFailedStart: false }, /recreateOnFailedStart is unknown/],
    [{ readinessProbeMs: 0 }, /readinessProbeMs/],
    [{ owner: "has space" }, /owner must be 1-64 characters/],
    [{ timeouts: { bogusMs: 1 } }, /timeouts\.bogusMs is unknown/],
    [{ onBackgroundError: "log" }, /onBackgroundError must be a function/],
  ];
  for (const [options, message] of cases) {
    assert.match(refusal({ apiKey: "k", ...options }).message, message, JSON.stringify(options));
  }
  const full = resolveOptions({
    apiKey: "k",
    image: "python:3.12",
    resources: { cpu: 2, memoryGiB: 4, diskGiB: 10 },
    volumes: [{ volumeId: "v", mountPath: "/data", subpath: "x" }],
    autoDeleteMinutes: 0,
  });
  assert.deepEqual(full.resources, { cpu: 2, memoryGiB: 4, diskGiB: 10 });
  assert.deepEqual(full.volumes, [{ volumeId: "v", mountPath: "/data", subpath: "x" }]);
  assert.equal(full.autoDeleteMinutes, 0);
});
