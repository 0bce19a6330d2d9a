import { readFileSync } from "node:fs";
import type { CliContext, ProviderFlags } from "../context.js";
import type { DoctorCheck } from "../doctor/check.js";
import { cgroupCheck, kvmCheck, nodeCheck, userCheck, userNamespaceCheck } from "../doctor/host-checks.js";
import { providerChecks } from "../doctor/provider-checks.js";
import { EXIT } from "../exit-codes.js";
import type { Colors } from "../output/colors.js";
import { Progress } from "../output/progress.js";
import type { Terminal } from "../output/terminal.js";
import { providersFor, settingsFor } from "../providers/load.js";

/**
 * `sandport doctor`: the host (Node, root, user namespaces, cgroups, /dev/kvm)
 * and each selected provider (adapter, SDKs, credentials by name, bubblewrap,
 * a throwaway launch where that is free), saying on stderr what it is
 * checking. Exits 1 when any check fails.
 */
export default async function doctor(context: CliContext, flags: ProviderFlags): Promise<number> {
  const manifest = JSON.parse(readFileSync(context.manifestPath, "utf8")) as { engines?: { node?: string } };
  const selected = providersFor(context, flags);
  const progress = new Progress(context.terminal, { quiet: flags.json });
  progress.step("checking the host");
  const checks: DoctorCheck[] = [
    nodeCheck(manifest.engines?.node ?? ">=20"),
    userCheck(),
    userNamespaceCheck(),
    cgroupCheck(),
    kvmCheck(),
  ];
  const strict = flags.provider !== undefined;
  for (const descriptor of selected) {
    progress.step(`checking ${descriptor.provider}`);
    const settings = settingsFor(context, flags);
    checks.push(...(await providerChecks({ descriptor, settings, redactor: context.terminal.redactor, strict })));
  }
  progress.stop();
  const failed = checks.some((check) => check.status === "fail");
  if (flags.json) context.terminal.json({ ok: !failed, checks });
  else printChecks(checks, context.terminal);
  return failed ? EXIT.FAILED : EXIT.OK;
}

/** One block per scope (the host, then each provider), one line per check, the fix indented below it. */
function printChecks(checks: readonly DoctorCheck[], terminal: Terminal): void {
  const color = terminal.color;
  const width = Math.max(...checks.map((check) => check.name.length));
  let scope: string | undefined;
  for (const check of checks) {
    if (check.scope !== scope) {
      if (scope !== undefined) terminal.line();
      scope = check.scope;
      terminal.line(color.bold(scope));
    }
    terminal.line(`  ${badge(check.status, color)} ${check.name.padEnd(width)}  ${check.detail}`);
    if (check.fix) terminal.line(`    ${" ".repeat(width + 2)}${color.cyan(`fix: ${check.fix}`)}`);
  }
}

function badge(status: DoctorCheck["status"], color: Colors): string {
  switch (status) {
    case "ok":
      return color.green("✔");
    case "fail":
      return color.red("✖");
    case "warn":
      return color.yellow("!");
    default:
      return color.dim("i");
  }
}
