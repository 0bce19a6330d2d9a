// Live providers the canary can exercise, and how to build each runtime from
// CI secrets. This is the one place outside tests that reads the environment:
// the adapters themselves never do; the canary hands every value to a constructor.
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const load = (name) => import(pathToFileURL(join(root, "packages", name, "dist/index.js")).href);

/** name → { required env vars, async factory(env) → runtime } */
export const PROVIDERS = {
  e2b: {
    requires: ["E2B_API_KEY"],
    create: async (env) => {
      const { E2BRuntime } = await load("e2b");
      return new E2BRuntime({
        apiKey: env.E2B_API_KEY,
        ...(env.E2B_DOMAIN ? { domain: env.E2B_DOMAIN } : {}),
        // Set only to rehearse the canary against the emulator.
        ...(env.E2B_API_URL ? { apiUrl: env.E2B_API_URL } : {}),
        ...(env.E2B_SANDBOX_URL ? { sandboxUrl: env.E2B_SANDBOX_URL } : {}),
        owner: "sandport-canary",
        lifetimeMs: 15 * 60_000,
      });
    },
  },
};

/** The reason a provider cannot run here (missing secrets), or undefined. */
export function missingSecrets(name, env) {
  const missing = PROVIDERS[name].requires.filter((variable) => !env[variable]);
  return missing.length > 0 ? `${missing.join(", ")} not set` : undefined;
}
