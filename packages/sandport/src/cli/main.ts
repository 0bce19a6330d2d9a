#!/usr/bin/env node
// The `sandport` command. Loads only the argument parser and the command
// definitions up front; each command's module (and through it any provider, SDK
// or the conformance suite) is imported when that command runs.
import { readFileSync } from "node:fs";
import { CommanderError } from "commander";
import { EXIT } from "./exit-codes.js";
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

// `run` returns its command's exit code, so its own failures (usage, configuration, provider) all become 125.
const isRun = process.argv.slice(2).find((arg) => !arg.startsWith("-")) === "run";
let exitCode: number = EXIT.OK;
try {
  await buildProgram(context, (code) => {
    exitCode = code;
  }).parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Commander has printed the help, the version or its usage error already.
    exitCode = error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
  } else {
    // Loaded only on failure: it brings in @sandport/core, which --help never needs.
    const { reportError } = await import("./report-error.js");
    exitCode = reportError(error, terminal, controller.signal.aborted);
  }
  if (isRun && exitCode !== EXIT.OK && exitCode !== EXIT.INTERRUPTED) exitCode = EXIT.RUN_FAILED;
}
process.exitCode = exitCode;
