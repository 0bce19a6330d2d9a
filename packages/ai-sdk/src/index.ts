/**
 * @sandport/ai-sdk: any Sandport runtime inside the Vercel AI SDK. An
 * `Experimental_SandboxSession` for `experimental_sandbox`, a
 * `HarnessV1SandboxProvider` for `@ai-sdk/harness`, and a `Sandbox` for
 * `bash-tool`. The frameworks are optional peers: importing this loads none
 * of them, and their types are imported as types only.
 *
 * @module
 */

export type { BashToolSandbox } from "./bash-tool-sandbox.js";
export { createBashToolSandbox } from "./bash-tool-sandbox.js";
export type { HarnessSandboxProviderOptions } from "./harness-options.js";
export { IDENTITY_LABEL, SESSION_LABEL } from "./harness-options.js";
export { createHarnessSandboxProvider } from "./harness-provider.js";
export { createSandboxSession } from "./session.js";
export type { SandboxSessionOptions } from "./session-options.js";
