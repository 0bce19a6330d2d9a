// The pinned client on a fake SDK that records the environment it was
// constructed in: every MODAL_* variable replaced for the constructor only,
// restored after (also when the constructor throws), and a client whose
// profile came from anywhere else refused before anything is sent.
import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { createPinnedClient, type PinnedSettings } from "./pinned-client.js";
import type { ModalClient, ModalClientParams, ModalSdkModule } from "./sdk-types.js";

const SETTINGS: PinnedSettings = {
  serverUrl: "http://127.0.0.1:1",
  tokenId: "ak-pinned",
  tokenSecret: "as-pinned",
  environment: "pinned-env",
  maxThrottleWaitSecs: 60,
};

const PLANTED = {
  MODAL_SERVER_URL: "http://trap.invalid",
  MODAL_TOKEN_ID: "ak-trap",
  MODAL_PROFILE: "trap",
  MODAL_SANDBOX_V2: "false",
  MODAL_IMAGE_BUILDER_VERSION: "2023.12",
  MODAL_SANDBOX_CHANNEL_IDLE_TIMEOUT: "1",
};

beforeEach(() => Object.assign(process.env, PLANTED));
afterEach(() => {
  for (const name of Object.keys(PLANTED)) delete process.env[name];
});

/** A fake SDK whose constructor copies the MODAL_* environment it saw and builds a profile from `profileOf`. */
function recordingSdk(
  seen: Record<string, string>[],
  profileOf: (params: ModalClientParams) => Partial<ModalClient["profile"]> = () => ({}),
): ModalSdkModule {
  class Recording {
    readonly profile: ModalClient["profile"];
    constructor(params: ModalClientParams) {
      seen.push(Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith("MODAL_"))) as never);
      this.profile = {
        serverUrl: process.env.MODAL_SERVER_URL as string,
        sandboxV2: process.env.MODAL_SANDBOX_V2 === "true",
        tokenId: params.tokenId,
        tokenSecret: params.tokenSecret,
        environment: params.environment,
        ...profileOf(params),
      };
    }
  }
  return { ModalClient: Recording as unknown as ModalSdkModule["ModalClient"] };
}

test("the constructor sees only the pinned server, V2 and a profile no config holds; the environment is restored", () => {
  const seen: Record<string, string>[] = [];
  const client = createPinnedClient(recordingSdk(seen), SETTINGS);
  assert.equal(seen.length, 1);
  assert.deepEqual(Object.keys(seen[0] ?? {}).sort(), ["MODAL_PROFILE", "MODAL_SANDBOX_V2", "MODAL_SERVER_URL"]);
  assert.equal(seen[0]?.MODAL_SERVER_URL, SETTINGS.serverUrl);
  assert.equal(seen[0]?.MODAL_SANDBOX_V2, "true");
  assert.match(seen[0]?.MODAL_PROFILE ?? "", /^sandport-pinned-[0-9a-f-]{36}$/);
  assert.equal(client.profile.serverUrl, SETTINGS.serverUrl);
  for (const [name, value] of Object.entries(PLANTED)) assert.equal(process.env[name], value, `${name} restored`);
});

test("the environment is restored when the constructor throws", () => {
  const throwing = {
    ModalClient: class {
      constructor() {
        throw new Error("boom");
      }
    },
  } as unknown as ModalSdkModule;
  assert.throws(() => createPinnedClient(throwing, SETTINGS), /boom/);
  for (const [name, value] of Object.entries(PLANTED)) assert.equal(process.env[name], value);
  assert.equal(process.env.MODAL_SANDBOX_V2, "false");
});

test("a client whose profile took anything from elsewhere is refused with SDK_UNAVAILABLE", async () => {
  for (const [field, leak] of [
    ["server URL", { serverUrl: "http://trap.invalid" }],
    ["sandbox API version", { sandboxV2: false }],
    ["OAuth credentials", { oauthRefreshToken: "rt" }],
    ["image builder version", { imageBuilderVersion: "2023.12" }],
    ["environment", { environment: "nowhere" }],
  ] as const) {
    const error = await expectCode(
      () =>
        Promise.resolve().then(() =>
          createPinnedClient(
            recordingSdk([], () => leak),
            SETTINGS,
          ),
        ),
      "SDK_UNAVAILABLE",
      field,
    );
    assert.match(error.message, new RegExp(field));
  }
});
