// The shared conformance suite against a live provider, chosen by
// SANDPORT_CANARY_PROVIDER. Run by scripts/canary.mjs, never by `pnpm test`.
import { describeRuntimeConformance } from "sandport/testkit";
import { missingSecrets, PROVIDERS } from "./providers.mjs";

const name = process.env.SANDPORT_CANARY_PROVIDER ?? "";
const provider = PROVIDERS[name as keyof typeof PROVIDERS];
if (!provider) throw new Error(`unknown canary provider "${name}"`);

describeRuntimeConformance({
  name: `${name} (live)`,
  unavailable: missingSecrets(name, process.env),
  createRuntime: async () => {
    const runtime = await provider.create(process.env);
    const reopen = () => provider.create(process.env);
    return { runtime, reopen };
  },
  // Real clouds take seconds where emulators take milliseconds.
  timeouts: { testMs: 180_000, hookMs: 300_000, promptMs: 15_000 },
  // The suite's symlink check plants links on this machine's /tmp, which a remote sandbox cannot see.
  skip: { "files.symlink-escapes": "a remote sandbox does not share this machine's filesystem" },
});
