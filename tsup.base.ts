import type { Options } from "tsup";

/**
 * The build every package shares: ESM + CJS, `.d.ts` + `.d.cts`, source maps,
 * Node 20 syntax. Each package's `tsup.config.ts` passes only what differs.
 */
export function packageBuild(overrides: Options = {}): Options {
  return {
    entry: ["src/index.ts"],
    format: ["esm", "cjs"],
    dts: true,
    sourcemap: true,
    clean: true,
    target: "node20",
    // Keep "node:" specifiers: "node:test" has no bare form.
    removeNodeProtocol: false,
    treeshake: true,
    ...overrides,
  };
}
