import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { satisfiesNodeRange } from "./node-range.js";
import { createSdkLoader } from "./sdk-loader.js";

const base = { provider: "acme", adapterPackage: "@sandport/acme", range: ">=1 <2" };
const missingModule = () => Promise.reject(new Error("Cannot find package 'acme-sdk'"));

describe("createSdkLoader", () => {
  test("tries each package name in order and checks the members it needs", async () => {
    const module = { Client: { create() {} } };
    const load = createSdkLoader({
      ...base,
      packages: [
        { name: "@acme/sdk", load: missingModule },
        { name: "acme-sdk", load: async () => module },
      ],
      requiredMembers: ["Client.create"],
    });
    assert.equal(await load(), module);
    assert.deepEqual(load.packageNames, ["@acme/sdk", "acme-sdk"]);
    assert.equal(load.range, ">=1 <2");
  });

  test("a missing SDK is SDK_UNAVAILABLE naming every package, the range and the install line; a retry loads again", async () => {
    let attempts = 0;
    const load = createSdkLoader({
      ...base,
      packages: [
        {
          name: "acme-sdk",
          load: () => {
            attempts++;
            return attempts === 1 ? missingModule() : Promise.resolve({ ok: true });
          },
        },
      ],
    });
    await assert.rejects(load(), (error) => {
      assert.ok(SandportError.hasCode(error, "SDK_UNAVAILABLE"));
      assert.match(error.message, /"acme-sdk" \(>=1 <2\)/);
      assert.match(error.message, /npm install acme-sdk@">=1 <2"/);
      assert.doesNotMatch(error.message, /Node/, "no Node blame when none is required");
      return true;
    });
    assert.deepEqual(await load(), { ok: true }, "the failure was not cached");
  });

  test("the wrong package (members missing) is refused; Node is blamed only when this Node does not satisfy the SDK's", async () => {
    const impostor = createSdkLoader({
      ...base,
      packages: [{ name: "acme-sdk", load: async () => ({ default: () => "a browser widget" }) }],
      requiredMembers: ["Client.create"],
      node: ">=20",
    });
    await assert.rejects(impostor(), (error) => {
      assert.ok(SandportError.hasCode(error, "SDK_UNAVAILABLE"));
      assert.match(error.message, /lacks Client\.create/);
      assert.doesNotMatch(error.message, /Node/);
      return true;
    });
    const tooNew = createSdkLoader({ ...base, packages: [{ name: "acme-sdk", load: missingModule }], node: ">=99" });
    await assert.rejects(tooNew(), /needs Node >=99, and this is Node/);
  });

  test("an injected SDK is used instead of importing", async () => {
    const injected = { Client: { create() {} } };
    const load = createSdkLoader({ ...base, packages: [{ name: "acme-sdk", load: missingModule }], source: injected });
    assert.equal(await load(), injected);
  });

  test("node ranges", () => {
    assert.equal(satisfiesNodeRange("20.18.1", ">=20.18.1 <21 || >=22"), true);
    assert.equal(satisfiesNodeRange("20.10.0", ">=20.18.1 <21 || >=22"), false);
    assert.equal(satisfiesNodeRange("22.3.0", ">=22"), true);
    assert.equal(satisfiesNodeRange("20.20.2", ">=22"), false);
  });
});
