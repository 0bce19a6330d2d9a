#!/usr/bin/env node
// Runs a command with its output held back, printing it only when the command fails:
// `node scripts/quiet.mjs pnpm build` keeps the demo's first screen for the demo.
import { spawn } from "node:child_process";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node scripts/quiet.mjs <command> [args...]");
  process.exit(2);
}
const chunks = [];
const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
child.stdout.on("data", (chunk) => chunks.push(chunk));
child.stderr.on("data", (chunk) => chunks.push(chunk));
child.on("error", (error) => {
  console.error(`${command}: ${error.message}`);
  process.exit(1);
});
child.on("close", (code, signal) => {
  if (code === 0) return;
  process.stderr.write(Buffer.concat(chunks));
  console.error(`\n${[command, ...args].join(" ")} failed (${signal ?? `exit ${code}`})`);
  process.exit(code ?? 1);
});
