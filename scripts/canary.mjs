#!/usr/bin/env node
// Live canary: for each provider whose secrets are present, run
// the shared conformance suite against the real service, then probe the
// capabilities its adapter declares `unknown`, and write an evidence record
// (evidence/<provider>.json) that `resolveCapabilities(runtime, evidence)` can
// use. Providers without secrets are skipped with a line saying so. Needs `pnpm build`.
//
//   E2B_API_KEY=... node scripts/canary.mjs [provider ...]
//
// Rehearse it offline against the E2B emulator by also setting E2B_API_URL and
// E2B_SANDBOX_URL to the emulator's URL (evidence/ is git-ignored: a record is
// committed only after a reviewed live run).
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { MODE_PROBES, PROBES } from "./canary/probes.mjs";
import { missingSecrets, PROVIDERS } from "./canary/providers.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const core = await import(pathToFileURL(join(root, "packages/core/dist/index.js")).href);
const wanted = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(PROVIDERS);
let failed = false;

for (const name of wanted) {
  if (!PROVIDERS[name]) throw new Error(`unknown provider "${name}"; known: ${Object.keys(PROVIDERS).join(", ")}`);
  const missing = missingSecrets(name, process.env);
  if (missing) {
    console.log(`canary ${name}: skipped (${missing})`);
    continue;
  }
  console.log(`canary ${name}: conformance suite against the live service`);
  const suite = spawnSync(
    process.execPath,
    ["--import", "tsx", "--test", "--test-reporter=spec", "--test-force-exit", "scripts/canary/live-conformance.ts"],
    { cwd: root, stdio: "inherit", env: { ...process.env, SANDPORT_CANARY_PROVIDER: name } },
  );
  if (suite.status !== 0) {
    console.error(`canary ${name}: conformance failed; no evidence written`);
    failed = true;
    continue;
  }

  const runtime = await PROVIDERS[name].create(process.env);
  const declared = runtime.capabilities;
  const observed = {};
  const probes = [
    ...Object.entries(PROBES).map(([capability, probe]) => [capability, declared[capability], probe]),
    ...Object.entries(MODE_PROBES).map(([mode, probe]) => [mode, declared.modes[mode], probe]),
  ];
  for (const [capability, value, probe] of probes) {
    if (!core.isPendingEvidence(value)) continue; // only unknown cells can be promoted
    try {
      const seen = await probe(runtime);
      if (seen !== undefined) observed[capability] = seen;
      console.log(`canary ${name}: ${capability} → ${seen ?? "not established"}`);
    } catch (error) {
      console.log(`canary ${name}: ${capability} probe failed: ${error.message}`);
    }
  }
  const record = core.parseEvidenceRecord({
    format: core.EVIDENCE_FORMAT,
    provider: runtime.provider,
    recordedAt: new Date().toISOString(),
    runId: process.env.GITHUB_RUN_ID ? `github-actions:${process.env.GITHUB_RUN_ID}` : `local:${Date.now()}`,
    observed,
  });
  mkdirSync(join(root, "evidence"), { recursive: true });
  writeFileSync(join(root, "evidence", `${name}.json`), `${JSON.stringify(record, null, 2)}\n`);
  console.log(`canary ${name}: evidence written to evidence/${name}.json`);
}

process.exitCode = failed ? 1 : 0;
