// Loads the real e2b SDK for the emulator's wire tests. @sandport/testkit does
// not depend on e2b; the copy installed for @sandport/e2b is resolved from there.

import { createRequire } from "node:module";
import type * as E2BModule from "../../../../e2b/node_modules/e2b/dist/index.js";

export type E2B = typeof E2BModule;
export type SandboxOpts = E2BModule.SandboxOpts;

const requireFromE2BPackage = createRequire(new URL("../../../../e2b/package.json", import.meta.url));

/** The `e2b` package (CommonJS build) as installed for packages/e2b. */
export const e2b: E2B = requireFromE2BPackage("e2b");
