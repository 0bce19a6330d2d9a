#!/usr/bin/env node
// For .github/workflows/canary.yml: from the repository's secrets (SECRETS, the JSON of the
// workflow's secrets context) print, in $GITHUB_ENV's format, only PROVIDER's own
// SANDPORT_<PROVIDER>_* ones, the names `sandport canary` reads. Each provider's job thus sees
// its own credentials and no other's; a provider without secrets gets none (and is skipped).
import { randomUUID } from "node:crypto";

const provider = process.env.PROVIDER ?? "";
if (!/^[a-z0-9-]+$/.test(provider)) {
  console.error("canary-env: PROVIDER must name a provider (e2b, daytona, ...)");
  process.exit(2);
}
const prefix = `SANDPORT_${provider.toUpperCase().replace(/-/g, "_")}_`;
const secrets = JSON.parse(process.env.SECRETS ?? "{}");
for (const [name, value] of Object.entries(secrets)) {
  if (!name.startsWith(prefix) || typeof value !== "string" || value === "") continue;
  // The heredoc form, with a delimiter no value can contain, keeps multi-line secrets whole.
  const delimiter = `SANDPORT_EOF_${randomUUID()}`;
  process.stdout.write(`${name}<<${delimiter}\n${value}\n${delimiter}\n`);
}
