#!/usr/bin/env node
// Counts the provider round trips of the standard workload for every adapter (or those named):
//   pnpm build && node scripts/round-trips.mjs [provider...]
// Not a test: each scripts/round-trips/<provider>.mjs prints its table (see workload.mjs).
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const folder = fileURLToPath(new URL("round-trips/", import.meta.url));
const available = readdirSync(folder)
  .filter((name) => name.endsWith(".mjs") && name !== "workload.mjs")
  .map((name) => name.slice(0, -".mjs".length));
const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(`no round-trip script for ${unknown.join(", ")}; available: ${available.join(", ")}`);
  process.exit(2);
}
for (const name of wanted.length > 0 ? wanted : available)
  await import(new URL(`round-trips/${name}.mjs`, import.meta.url).href);
