#!/usr/bin/env node
// The `sandport` command. Loads only the argument parser and the command
// definitions up front; each command's module (and through it any provider, SDK
// or the conformance suite) is imported when that command runs.
import { readFileSync } from "node:fs";
import { CommanderError } from "commander";
import { EXIT, runExitCode } from "./exit-codes.js";
import { findManifest } from "./manifest.js";
import { Terminal } from "./output/terminal.js";
import { buildProgram } from "./program.js";

const controller = new AbortController();
let interrupts = 0;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    // The first one tears down what was launched; a second one leaves at once.
    if (++interrupts > 1) process.exit(EXIT.INTERRUPTED);
    controller.abort(new Error(`received ${signal}`));
  });
}

// A reader that closes early (`sandport capabilities | head`) ends the command quietly, not with a stack trace.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(exitCode);
});

const terminal = new Terminal(process.stdout, process.stderr, process.env);
const manifestPath = findManifest(import.meta.url);
const { version } = JSON.parse(readFileSync(manifestPath, "utf8")) as { version: string };
const context = { terminal, env: process.env, cwd: process.cwd(), manifestPath, version, signal: controller.signal };

const args = process.argv.slice(2);
// Flags after `--` are `run`'s command's own.
const ownArgs = args.includes("--") ? args.slice(0, args.indexOf("--")) : args;
const commandName = ownArgs.find((arg) => !arg.startsWith("-"));
// `run` returns its command's exit code, so its own failures (configuration, provider) become 125.
const isRun = commandName === "run";
// Known before the command line is parsed, so that an error of the command line itself is JSON too.
const json = ownArgs.includes("--json");
let exitCode: number = EXIT.OK;
const program = buildProgram(context, (code) => {
  exitCode = code;
});
try {
  await program.parseAsync(process.argv);
} catch (error) {
  // Commander has printed the help or the version already; its usage errors are reported below like any other.
  if (error instanceof CommanderError && error.exitCode === 0) {
    exitCode = EXIT.OK;
  } else if (error instanceof CommanderError && error.code === "commander.help") {
    // No command given: commander printed the help on stderr.
    exitCode = EXIT.USAGE;
    if (json)
      terminal.json({ error: { code: "USAGE", message: "no command given", exitCode, usage: usageOf(undefined) } });
  } else {
    // Loaded only on failure: it brings in @sandport/core, which --help never needs.
    const { describeError, printError } = await import("./report-error.js");
    const report =
      error instanceof CommanderError
        ? { code: "USAGE", message: error.message.replace(/^error: /, ""), exitCode: EXIT.USAGE }
        : describeError(error, controller.signal.aborted);
    if (isRun) report.exitCode = runExitCode(report.exitCode);
    if (report.exitCode === EXIT.USAGE) report.usage = usageOf(commandName);
    printError(report, terminal, json);
    exitCode = report.exitCode;
  }
}
process.exitCode = exitCode;

/** The usage line of the command named `name`, or of the program when it names none. */
function usageOf(name: string | undefined): string {
  const command = program.commands.find((candidate) => candidate.name() === name);
  return command ? `sandport ${command.name()} ${command.usage()}` : `sandport ${program.usage()}`;
}
