#!/usr/bin/env node
// The README's demo: one orchestrated workload on the embedded local runtime.
// It launches a sandbox, writes a small project into it, runs the project's
// tests with output streamed live, collects the report, prints a summary with
// per-step timings and the resolved capability table, and tears down.
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { resolveCapabilities, SandboxOrchestrator, SandportError } from "sandport/core";
import { LocalRuntime } from "sandport/local";

const projectDir = fileURLToPath(new URL("../examples/demo-project", import.meta.url));
const node = process.execPath;
const dim = (text) => (process.stdout.isTTY ? `\x1b[2m${text}\x1b[0m` : text);
const bold = (text) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text);

/** Every file of the example project, as Sandport FileInputs. */
function projectFiles(dir = projectDir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return projectFiles(path);
    return [{ path: `app/${relative(projectDir, path)}`, content: readFileSync(path) }];
  });
}

let atLineStart = true;
/** Output chunks need not end at line ends: prefix each line once, where it starts. */
function prefixLines(text) {
  let out = "";
  for (const character of text) {
    if (atLineStart) out += dim("│ ");
    out += character;
    atLineStart = character === "\n";
  }
  return out;
}

function onEvent(event) {
  switch (event.type) {
    case "launched":
      return console.log(`${bold("▶ launched")} ${event.sandboxId} ${dim(`(${event.durationMs.toFixed(1)} ms)`)}`);
    case "files-written":
      return console.log(
        `${bold("▶ wrote")} ${event.paths.length} files, ${event.bytes} bytes ${dim(`(${event.durationMs.toFixed(1)} ms)`)}`,
      );
    case "step-started":
      return console.log(`${bold(`▶ step ${event.index + 1}: ${event.name}`)}`);
    case "step-output":
      return (event.stream === "stderr" ? process.stderr : process.stdout).write(prefixLines(event.data));
    case "step-exited":
      if (!atLineStart) process.stdout.write("\n");
      atLineStart = true;
      return console.log(
        `${bold("◀ exit")} ${event.result.exitCode} ${dim(`(${event.result.durationMs.toFixed(1)} ms, isolation: ${event.result.isolation})`)}`,
      );
    case "collected":
      return console.log(`${bold("▶ collected")} ${event.path} (${event.bytes} bytes)`);
    case "destroyed":
      return console.log(`${bold("▶ destroyed")} ${event.sandboxId} ${dim(`(${event.durationMs.toFixed(1)} ms)`)}`);
    case "teardown-failed":
      return console.error(`✖ teardown of ${event.sandboxId} failed: ${event.error.message}`);
    default:
      return undefined;
  }
}

async function runDemo(isolation, root) {
  // Node lives outside /usr on some machines (nvm, setup-node): make its install visible read-only.
  const runtime = new LocalRuntime({ root, isolation, readOnlyPaths: [dirname(dirname(node))] });
  const orchestrator = new SandboxOrchestrator(runtime, { onEvent });
  const result = await orchestrator.run({
    launch: { labels: { demo: "sandport" } },
    files: projectFiles(),
    steps: [
      { name: "node version", argv: [node, "--version"] },
      { name: "unit tests", argv: [node, "--test", "--test-reporter=spec", "test/"], cwd: "app", timeoutMs: 60_000 },
      { name: "write report", argv: [node, "scripts/report.mjs", "report.json"], cwd: "app", timeoutMs: 60_000 },
    ],
    collect: ["app/report.json"],
  });
  return { runtime, result };
}

const root = await mkdtemp(join(tmpdir(), "sandport-demo-"));
try {
  let outcome;
  try {
    outcome = await runDemo("namespaces", root);
  } catch (error) {
    // A WorkloadError carries its cause's code, so one check covers a refusal at launch.
    if (!SandportError.hasCode(error, "UNSUPPORTED")) throw error;
    console.warn(`\n⚠ ${error.message}`);
    console.warn('⚠ The demo runs its own trusted example, so it now opts in to isolation: "none" explicitly.');
    console.warn("⚠ Install bubblewrap (apt-get install bubblewrap) to run it in Linux namespaces.\n");
    outcome = await runDemo("none", root);
  }
  const { runtime, result } = outcome;
  const report = JSON.parse(new TextDecoder().decode(result.collected["app/report.json"]));

  console.log(
    `\n${bold("Summary")}  ok: ${result.ok}  sandbox: ${result.sandboxId}  teardown: ${result.teardown.outcome}`,
  );
  // Numbered as in the log above ("step 1", "step 2", ...).
  console.table(
    Object.fromEntries(
      result.steps.map((step) => [
        `step ${step.index + 1}`,
        { name: step.name, exit: step.result.exitCode, ms: Number(step.durationMs.toFixed(1)) },
      ]),
    ),
  );
  const { launchMs, filesMs, stepsMs, collectMs, teardownMs, totalMs } = result.timings;
  console.table(
    [{ launchMs, filesMs, stepsMs, collectMs, teardownMs, totalMs }].map((row) =>
      Object.fromEntries(Object.entries(row).map(([key, value]) => [key, Number(value.toFixed(1))])),
    ),
  );
  console.log(`report.json: ${report.passed}/${report.total} cases passed`);
  const { sources, provider, observedAt, ...capabilities } = resolveCapabilities(runtime);
  console.log(`\n${bold(`Capabilities of ${provider}`)}`);
  // In the README's words: yes, a mode, or why not (unsupported, not-exposed, unknown).
  console.table(
    Object.fromEntries(
      Object.entries(capabilities).map(([capability, value]) => [
        capability,
        {
          value: value === true ? "yes" : String(value),
          source: sources[capability],
          // Evidence says where it was gathered; a declared or structural value has none.
          ...(observedAt[capability] ? { "observed at": observedAt[capability].join(", ") } : {}),
        },
      ]),
    ),
  );
  process.exitCode = result.ok ? 0 : 1;
} finally {
  await rm(root, { recursive: true, force: true });
}
