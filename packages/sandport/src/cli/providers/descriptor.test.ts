// The descriptors adapters ship for the CLI: every provider package in the repository has a valid
// one (a new adapter without one fails here), and malformed ones are refused with the field named.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { CliError } from "../cli-error.js";
import { Redactor } from "../output/redactor.js";
import { type AdapterManifest, optionNamed, parseDescriptor } from "./descriptor.js";
import { nestOptions } from "./option-values.js";
import { resolveProviderOptions } from "./provider-options.js";
import { findProviders } from "./registry.js";

const packagesDir = fileURLToPath(new URL("../../../../", import.meta.url));
const umbrellaManifest = join(packagesDir, "sandport", "package.json");
/** Packages that are not providers, as the umbrella generator and the package contract count them. */
const NOT_PROVIDERS = new Set(["core", "testkit", "sandport"]);

/** A framework bridge: `"sandport": { "kind": "bridge" }` in its package.json. */
function isBridge(dir: string): boolean {
  const path = join(packagesDir, dir, "package.json");
  return (JSON.parse(readFileSync(path, "utf8")) as { sandport?: { kind?: unknown } }).sandport?.kind === "bridge";
}

const e2b: AdapterManifest = {
  name: "@sandport/e2b",
  version: "1.0.0",
  peerDependencies: { e2b: ">=2 <3", "@sandport/core": "^1" },
  sandport: {
    runtime: "E2BRuntime",
    options: {
      apiKey: { env: "SANDPORT_E2B_API_KEY", secret: true, required: true, inspect: "placeholder" },
      apiUrl: { env: "SANDPORT_E2B_API_URL" },
      lifetimeMs: { env: "SANDPORT_E2B_LIFETIME_MS", type: "integer" },
    },
    endpoint: ["apiUrl"],
  },
};

function refusal(sandport: unknown): string {
  try {
    parseDescriptor({ ...e2b, sandport }, "/x/package.json");
  } catch (error) {
    assert.ok(error instanceof CliError && error.code === "DESCRIPTOR_INVALID", String(error));
    return error.message;
  }
  return assert.fail("the descriptor was accepted");
}

describe("provider descriptors", () => {
  test("every provider package in the repository ships a valid descriptor", () => {
    const providers = readdirSync(packagesDir).filter((dir) => !NOT_PROVIDERS.has(dir) && !isBridge(dir));
    assert.ok(providers.length >= 4);
    for (const dir of providers) {
      const path = join(packagesDir, dir, "package.json");
      const manifest = JSON.parse(readFileSync(path, "utf8")) as AdapterManifest;
      const descriptor = parseDescriptor(manifest, path);
      assert.ok(descriptor, `${manifest.name} has no "sandport" descriptor: see docs/adapters.md, "Joining the CLI"`);
      assert.equal(descriptor.provider, dir);
      const barrel = readFileSync(join(packagesDir, dir, "src", "index.ts"), "utf8");
      assert.match(barrel, new RegExp(`\\b${descriptor.runtimeExport}\\b`), `${manifest.name} exports its runtime`);
    }
  });

  test("the CLI finds exactly the umbrella's provider dependencies", () => {
    const found = findProviders(umbrellaManifest).map((descriptor) => descriptor.provider);
    const manifest = JSON.parse(readFileSync(umbrellaManifest, "utf8")) as { dependencies: Record<string, string> };
    const expected = Object.keys(manifest.dependencies)
      .filter((name) => name.startsWith("@sandport/") && !NOT_PROVIDERS.has(name.slice("@sandport/".length)))
      .filter((name) => !isBridge(name.slice("@sandport/".length)))
      .map((name) => name.slice("@sandport/".length));
    assert.deepEqual(found, expected.sort());
  });

  test("a package without a descriptor, or a framework bridge, is not a provider", () => {
    assert.equal(parseDescriptor({ name: "@sandport/core", version: "1.0.0" }, "/x/package.json"), undefined);
    const bridge = { name: "@sandport/ai-sdk", version: "1.0.0", sandport: { kind: "bridge" } };
    assert.equal(parseDescriptor(bridge, "/x/package.json"), undefined);
    assert.match(refusal({ kind: "plugin", runtime: "E2BRuntime" }), /"kind" must be/);
  });

  test("reads the SDKs from the peer dependencies, leaving out Sandport's own", () => {
    const descriptor = parseDescriptor(e2b, "/x/package.json");
    assert.deepEqual(descriptor?.sdks, { e2b: ">=2 <3" });
    assert.deepEqual(descriptor?.endpoint, ["apiUrl"]);
  });

  test("sdkAlternatives: one SDK under several names, each a peer dependency, in at most one group", () => {
    const renamed = { ...e2b, peerDependencies: { "new-sdk": ">=1 <2", "old-sdk": ">=1 <2", other: "^3" } };
    const sandport = (sdkAlternatives: unknown) => ({ ...(e2b.sandport as object), sdkAlternatives });
    const descriptor = parseDescriptor({ ...renamed, sandport: sandport([["new-sdk", "old-sdk"]]) }, "/x/package.json");
    assert.deepEqual(descriptor?.sdkAlternatives, [["new-sdk", "old-sdk"]]);
    assert.deepEqual(parseDescriptor(e2b, "/x/package.json")?.sdkAlternatives, []);
    for (const groups of [
      ["new-sdk"],
      [["new-sdk"]],
      [["new-sdk", "absent"]],
      [
        ["new-sdk", "old-sdk"],
        ["old-sdk", "other"],
      ],
    ]) {
      assert.throws(
        () => parseDescriptor({ ...renamed, sandport: sandport(groups) }, "/x/package.json"),
        /"sdkAlternatives" must list groups of two or more/,
        JSON.stringify(groups),
      );
    }
  });

  test("refuses malformed descriptors, naming the field", () => {
    assert.match(refusal({ options: {} }), /"runtime" must name/);
    assert.match(refusal({ runtime: "e2b" }), /"runtime" must name/);
    assert.match(
      refusal({ runtime: "E2BRuntime", options: { apiKey: { env: "E2B_API_KEY" } } }),
      /SANDPORT_E2B_<NAME>/,
    );
    assert.match(refusal({ runtime: "E2BRuntime", options: { owner: { env: "SANDPORT_E2B_OWNER" } } }), /"owner"/);
    assert.match(
      refusal({ runtime: "E2BRuntime", options: { x: { env: "SANDPORT_E2B_X", type: "float" } } }),
      /type must be one of/,
    );
    assert.match(refusal({ runtime: "E2BRuntime", endpoint: ["apiUrl"] }), /"endpoint" must list options/);
    assert.match(refusal({ runtime: "E2BRuntime", canary: { skip: { "files.text": "" } } }), /needs a reason/);
    assert.match(
      refusal({ runtime: "E2BRuntime", doctor: { bubblewrap: { option: "bwrap", default: "/usr/bin/bwrap" } } }),
      /doctor.bubblewrap.option/,
    );
    const typed = { env: "SANDPORT_E2B_LIFETIME_MS", type: "integer" };
    assert.match(
      refusal({ runtime: "E2BRuntime", options: { lifetimeMs: { ...typed, default: "an hour" } } }),
      /"an hour" is not an integer/,
    );
    assert.match(
      refusal({ runtime: "E2BRuntime", options: { lifetimeMs: { ...typed, required: true, default: "1" } } }),
      /default makes no sense/,
    );
  });
});

describe("provider options", () => {
  const descriptor = parseDescriptor(e2b, "/x/package.json")!;

  test("reads declared variables, then --endpoint, then --option, and passes the owner", () => {
    const redactor = new Redactor();
    const options = resolveProviderOptions(
      descriptor,
      {
        env: { SANDPORT_E2B_API_KEY: "key-123456", SANDPORT_E2B_LIFETIME_MS: "60000", E2B_API_KEY: "ambient" },
        endpoint: "http://127.0.0.1:9",
        options: ["lifetimeMs=5000"],
        owner: "ci",
      },
      redactor,
    );
    assert.deepEqual(options.values, {
      apiKey: "key-123456",
      apiUrl: "http://127.0.0.1:9",
      lifetimeMs: 5000,
      owner: "ci",
    });
    assert.deepEqual(options.missing, []);
    assert.deepEqual(options.credentials, [{ env: "SANDPORT_E2B_API_KEY", present: true }]);
    assert.equal(redactor.redact("Bearer key-123456 refused"), "Bearer [redacted] refused");
  });

  test("a missing credential is named; inspection takes the placeholder instead", () => {
    assert.deepEqual(resolveProviderOptions(descriptor, { env: {} }, new Redactor()).missing, ["SANDPORT_E2B_API_KEY"]);
    const inspected = resolveProviderOptions(descriptor, { env: {} }, new Redactor(), "inspect");
    assert.equal(inspected.values.apiKey, "placeholder");
    assert.deepEqual(inspected.missing, []);
  });

  test("a credential is never taken from --option, and a bad value never quotes a secret", () => {
    const refused = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        assert.ok(error instanceof CliError && error.code === "BAD_OPTION", String(error));
        return error.message;
      }
      return assert.fail("accepted");
    };
    assert.match(
      refused(() => resolveProviderOptions(descriptor, { env: {}, options: ["apiKey=abc"] }, new Redactor())),
      /credential: set SANDPORT_E2B_API_KEY/,
    );
    assert.match(
      refused(() => resolveProviderOptions(descriptor, { env: { SANDPORT_E2B_LIFETIME_MS: "soon" } }, new Redactor())),
      /SANDPORT_E2B_LIFETIME_MS: "soon" is not an integer/,
    );
  });

  test("a declared default fills an option nothing else set, read as its type", () => {
    const withDefault = parseDescriptor(
      {
        ...e2b,
        sandport: {
          runtime: "E2BRuntime",
          options: { lifetimeMs: { env: "SANDPORT_E2B_LIFETIME_MS", type: "integer", default: "3600000" } },
        },
      },
      "/x/package.json",
    )!;
    const unset = resolveProviderOptions(withDefault, { env: {} }, new Redactor());
    assert.equal(unset.values.lifetimeMs, 3_600_000);
    assert.equal(unset.sources.lifetimeMs, "default");
    const set = resolveProviderOptions(withDefault, { env: { SANDPORT_E2B_LIFETIME_MS: "5000" } }, new Redactor());
    assert.equal(set.values.lifetimeMs, 5000);
    assert.equal(set.sources.lifetimeMs, "env");
  });

  test("a dotted option sets a field of an object option, also under its provider's scope", () => {
    const nested = parseDescriptor(
      {
        name: "@sandport/microsandbox",
        version: "1.0.0",
        sandport: {
          runtime: "MicrosandboxRuntime",
          options: {
            "backend.kind": { env: "SANDPORT_MICROSANDBOX_BACKEND", default: "cloud" },
            "backend.apiKey": { env: "SANDPORT_MICROSANDBOX_API_KEY", secret: true, required: true },
            "backend.url": { env: "SANDPORT_MICROSANDBOX_URL" },
            "resources.vcpus": { env: "SANDPORT_MICROSANDBOX_VCPUS", type: "integer" },
          },
          endpoint: ["backend.url"],
        },
      },
      "/x/package.json",
    )!;
    assert.equal(optionNamed(nested, "backend.url"), "backend.url");
    assert.equal(optionNamed(nested, "microsandbox.resources.vcpus"), "resources.vcpus");
    assert.equal(optionNamed(nested, "e2b.backend.url"), undefined);
    const options = resolveProviderOptions(
      nested,
      {
        env: { SANDPORT_MICROSANDBOX_API_KEY: "msb-key" },
        endpoint: "http://127.0.0.1:9",
        options: ["microsandbox.resources.vcpus=2", "local.root=/tmp/x"],
        shared: true,
      },
      new Redactor(),
    );
    assert.deepEqual(nestOptions(options.values), {
      backend: { kind: "cloud", apiKey: "msb-key", url: "http://127.0.0.1:9" },
      resources: { vcpus: 2 },
    });
    assert.match(
      refusal({ runtime: "E2BRuntime", options: { "owner.name": { env: "SANDPORT_E2B_OWNER_NAME" } } }),
      /"owner.name" is not allowed/,
    );
  });

  test("a provider-scoped --option applies to that provider only", () => {
    const options = resolveProviderOptions(
      descriptor,
      { env: {}, options: ["local.root=/tmp/x", "e2b.lifetimeMs=7"], shared: true },
      new Redactor(),
      "inspect",
    );
    assert.equal(options.values.lifetimeMs, 7);
    assert.equal(options.values.root, undefined);
  });
});

test("the README documents every variable a provider reads", () => {
  const readme = readFileSync(join(packagesDir, "..", "README.md"), "utf8");
  const variables = findProviders(umbrellaManifest).flatMap((descriptor) =>
    Object.values(descriptor.options).map((spec) => spec.env),
  );
  assert.ok(variables.includes("SANDPORT_E2B_API_KEY"));
  assert.deepEqual(
    variables.filter((variable) => !readme.includes(`| \`${variable}\` |`)),
    [],
  );
});
