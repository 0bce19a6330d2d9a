import { readdirSync } from "node:fs";
import { defineConfig } from "tsup";
import { packageBuild } from "../../tsup.base.js";

// One entry per subpath: the conformance suite, the wire-fault suite, the fakes, the assertions, the emulator harness's types, and each
// emulator (`src/emulators/<provider>/index.ts` → `@sandport/testkit/emulators/<provider>`).
const emulators = readdirSync("src/emulators", { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== "harness")
  .map((entry) => [`emulators/${entry.name}`, `src/emulators/${entry.name}/index.ts`]);

export default defineConfig(
  packageBuild({
    entry: {
      index: "src/index.ts",
      conformance: "src/conformance/index.ts",
      faults: "src/faults/index.ts",
      fakes: "src/fakes/index.ts",
      assertions: "src/assertions/index.ts",
      emulators: "src/emulators/index.ts",
      ...Object.fromEntries(emulators),
    },
  }),
);
