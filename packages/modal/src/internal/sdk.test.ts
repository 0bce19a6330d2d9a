// The SDK loader: the registry's `latest` tag of `modal` is an unrelated
// browser package, so a loaded module that is not the Modal SDK must fail
// with a clear SDK_UNAVAILABLE, and so must an injected loader that fails.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { ModalRuntime } from "../modal-runtime.js";
import { createModalSdkLoader } from "./sdk.js";
import type { ModalSdkModule } from "./sdk-types.js";

/** What `import("modal")` gives for modal@1.x (bengourley/modal.js): a CommonJS function, no ModalClient. */
const browserModal = { default: Object.assign(() => undefined, { version: "1.2.0" }) } as unknown as ModalSdkModule;

test("a module that is not the Modal SDK is SDK_UNAVAILABLE, saying what to install", async () => {
  const error = await expectCode(createModalSdkLoader(browserModal)(), "SDK_UNAVAILABLE");
  assert.match(error.message, /lacks ModalClient: it is not that SDK/);
  assert.match(error.message, /npm install modal@">=0\.11 <1"/);
  assert.equal(error.provider, "modal");
});

test("a runtime with the wrong SDK fails its first call with SDK_UNAVAILABLE; constructing it loads nothing", async () => {
  let loads = 0;
  const runtime = new ModalRuntime({
    tokenId: "ak-1",
    tokenSecret: "as-1",
    maxLifetimeMs: 60_000,
    sdk: async () => {
      loads++;
      return browserModal;
    },
  });
  assert.equal(loads, 0);
  await expectCode(runtime.launch(), "SDK_UNAVAILABLE");
  await expectCode(runtime.findByLabels({}), "SDK_UNAVAILABLE");
  assert.equal(loads, 2, "a failed load is not kept: installing the SDK later works");
});

test("an injected loader that fails is SDK_UNAVAILABLE with its failure as the cause", async () => {
  const failure = new Error("bundle chunk missing");
  const error = await expectCode(createModalSdkLoader(() => Promise.reject(failure))(), "SDK_UNAVAILABLE");
  assert.equal(error.cause, failure);
});

test("the installed SDK loads through the loader", async () => {
  const sdk = await createModalSdkLoader()();
  assert.equal(typeof sdk.ModalClient, "function");
});
