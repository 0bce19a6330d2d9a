import { Command, Option } from "commander";
import type { CliContext } from "./context.js";
import { EXIT_CODE_TABLE } from "./exit-codes.js";

/** A command's action: resolves the process exit code. */
type Action = (context: CliContext, flags: never, operands: string[]) => Promise<number>;

/** Collects a repeatable flag's values. */
const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** Options that may be given several times: absent, they are `[]` (not shown as a default in the help). */
const repeatable = new WeakSet<Option>();

/** Adds a repeatable option to `command`. */
function addRepeatable(command: Command, flags: string, description: string): Command {
  const option = new Option(flags, `${description} (repeatable)`).argParser(collect);
  repeatable.add(option);
  return command.addOption(option);
}

/** The command's option values, with every absent repeatable option as `[]`. */
function optionsOf(command: Command): Record<string, unknown> {
  const values = command.opts();
  for (const option of command.options) {
    if (repeatable.has(option) && values[option.attributeName()] === undefined) values[option.attributeName()] = [];
  }
  return values;
}

/** Loads a command's module only when the command runs, so `--help` loads no provider and no test kit. */
function lazy(context: CliContext, load: () => Promise<{ default: Action }>, setExit: (code: number) => void) {
  return async (...args: unknown[]) => {
    const command = args.at(-1) as Command;
    const operands = args.slice(0, -2).flat() as string[];
    const action = (await load()).default;
    setExit(await action(context, optionsOf(command) as never, operands));
  };
}

function providerFlags(command: Command, providerRequired: boolean): Command {
  const provider = new Option("--provider <name>", providerRequired ? "provider to use" : "only this provider");
  if (providerRequired) provider.makeOptionMandatory();
  return addRepeatable(
    command.addOption(provider),
    "--option <key=value>",
    "set a provider option the adapter declares",
  )
    .option("--endpoint <url>", "point the provider at another endpoint (an emulator, a self-hosted service)")
    .option("--owner <name>", "ownership boundary: only sandboxes of this owner are seen or touched");
}

const EXIT_HELP = `\nExit codes:\n${EXIT_CODE_TABLE.map(([code, meaning]) => `  ${String(code).padStart(3)}  ${meaning}`).join("\n")}\n
Provider credentials and settings are read from SANDPORT_<PROVIDER>_* environment variables
(\`sandport doctor\` lists them); values are never printed.`;

/**
 * The `sandport` command line: every command with its flags and help. Each
 * action's module is imported when the command runs; `setExit` receives its exit code.
 */
export function buildProgram(context: CliContext, setExit: (code: number) => void): Command {
  const program = new Command("sandport")
    .description("Drive code-sandbox providers through Sandport's one runtime port.")
    .version(context.version, "-v, --version")
    .enablePositionalOptions()
    .showSuggestionAfterError()
    // Set before the commands are added, so that every command inherits them: commander throws instead of
    // exiting, and the entry point maps its errors to the documented exit codes.
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(context.terminal.errorColor.red(text)) })
    .addHelpText("after", EXIT_HELP);

  const doctor = providerFlags(program.command("doctor"), false)
    .description("what works on this machine and why not: isolation, Node, SDKs, credentials (names only)")
    .option("--json", "print the checks as JSON");
  doctor.action(lazy(context, () => import("./commands/doctor.js"), setExit));

  const capabilities = providerFlags(program.command("capabilities"), false)
    .description("the resolved capability table: structural, declared, observed or absent (and why)")
    .option("--json", "print the table as JSON");
  addRepeatable(capabilities, "--evidence <file>", "apply a canary's evidence record");
  capabilities.action(lazy(context, () => import("./commands/capabilities.js"), setExit));

  const run = providerFlags(program.command("run"), true)
    .description("one workload: launch, write files, run CMD (output live), collect, tear down; exits with CMD's code")
    .argument("<command...>", "the command to run in the sandbox, after --")
    .passThroughOptions()
    .option("--timeout <duration>", "kill the command after this long (e.g. 90s, 10m); exit 124")
    .option("--json", "print one JSON result instead of streaming output")
    .option("--verbose", "show progress on stderr even when it is not a terminal");
  addRepeatable(run, "--file <local[:remote]>", "copy a local file in; remote defaults to its base name");
  addRepeatable(run, "--collect <path[:local]>", "copy a workspace file out afterwards, even when CMD failed");
  addRepeatable(run, "--env <key=value>", "environment variable for the command");
  addRepeatable(run, "--label <key=value>", "label for the sandbox");
  run.action(lazy(context, () => import("./commands/run.js"), setExit));

  const canary = providerFlags(program.command("canary"), true)
    .description("conformance suite and capability probes against a live provider; writes an evidence record")
    .option("--out <file>", "where to write the evidence record", "evidence/<provider>.json")
    .option("--run-id <id>", "identifies this run in the record and in sandbox labels (default: from CI, else local)")
    .option("--idle <duration>", "how long the warm-lease probe leaves a sandbox idle", "30s")
    .option("--json", "print the evidence record as JSON");
  addRepeatable(canary, "--skip-check <id>", "skip a conformance check by id");
  canary.action(lazy(context, () => import("./commands/canary.js"), setExit));

  const sweep = providerFlags(program.command("sweep"), true)
    .description("find owned sandboxes older than a duration; with --yes destroy them and verify each is gone")
    .requiredOption("--older-than <duration>", "only sandboxes created longer ago than this (e.g. 2h, 0s)")
    .option("--yes", "destroy them (default: list only)")
    .option("--json", "print the outcome as JSON");
  addRepeatable(sweep, "--label <key=value>", "only sandboxes carrying this label");
  sweep.action(lazy(context, () => import("./commands/sweep.js"), setExit));

  return program;
}
