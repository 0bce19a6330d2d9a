import { Command, Option } from "commander";
import { COMMANDS, type CommandSpec } from "./command-specs.js";
import type { CliContext } from "./context.js";
import { EXIT_CODE_TABLE } from "./exit-codes.js";

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
function lazy(context: CliContext, spec: CommandSpec, setExit: (code: number) => void) {
  return async (...args: unknown[]) => {
    const command = args.at(-1) as Command;
    const operands = args.slice(0, -2).flat() as string[];
    const action = (await spec.load()).default;
    setExit(await action(context, optionsOf(command) as never, operands));
  };
}

/** Adds one command, as its spec describes it, to `program`. */
function addCommand(program: Command, spec: CommandSpec, context: CliContext, setExit: (code: number) => void): void {
  const command = providerFlags(program.command(spec.name), spec.providerRequired).description(spec.description);
  if (spec.operands) command.argument(spec.operands[0], spec.operands[1]).passThroughOptions();
  for (const [flags, description] of spec.required ?? []) command.requiredOption(flags, description);
  for (const [flags, description, defaultValue] of spec.flags ?? []) command.option(flags, description, defaultValue);
  for (const [flags, description] of spec.repeatable ?? []) addRepeatable(command, flags, description);
  command.action(lazy(context, spec, setExit));
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
 * The `sandport` command line: every command of {@link COMMANDS} with its
 * flags and help. Each action's module is imported when the command runs;
 * `setExit` receives its exit code.
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
    // The entry point reports commander's errors itself, with the usage line, and as JSON with `--json`.
    .configureOutput({ outputError: () => {} })
    .addHelpText("after", EXIT_HELP);

  for (const spec of COMMANDS) addCommand(program, spec, context, setExit);
  return program;
}
