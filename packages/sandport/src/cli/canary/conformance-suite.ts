// The shared conformance suite against the provider a `sandport canary` run
// names (its plan in SANDPORT_CANARY_PLAN). Run by the canary in a child
// `node --test`; credentials come from the environment through the same code
// as every other command, and are passed to the adapter explicitly.
import { after } from "node:test";
import { type ConformanceCheckId, describeRuntimeConformance } from "@sandport/testkit/conformance";
import { findManifest } from "../manifest.js";
import { Redactor } from "../output/redactor.js";
import { createRuntime } from "../providers/create-runtime.js";
import { findProviders, selectProviders } from "../providers/registry.js";
import { RUN_LABEL, readPlan } from "./canary-plan.js";

/** How long the process may run on after the last check: a vendor SDK's loop or socket can keep it alive. */
const LINGER_MS = 10_000;

// The first root after() hook, run once every check and its suite's cleanup is done: the process is
// then ended, with the exit code node:test gave it, if nothing else ended it. --test-force-exit would
// end it at once, while the last checks' results were still being written to the canary.
after(() => {
  setTimeout(() => process.exit(), LINGER_MS).unref();
});

const plan = readPlan(process.env);
const [descriptor] = selectProviders(findProviders(findManifest(import.meta.url)), plan.provider);
const settings = { env: process.env, options: plan.options, endpoint: plan.endpoint, owner: plan.owner };
const build = async () => (await createRuntime(descriptor!, settings, new Redactor())).runtime;

describeRuntimeConformance({
  name: `${plan.provider} (canary ${plan.runId})`,
  createRuntime: async () => ({ runtime: await build(), reopen: build }),
  launchSpec: { labels: { [RUN_LABEL]: plan.runId } },
  // Real clouds take seconds where emulators take milliseconds.
  timeouts: { testMs: 180_000, hookMs: 300_000, promptMs: 15_000 },
  skip: plan.skip as Partial<Record<ConformanceCheckId, string>>,
});
