import { execFileSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import type { DoctorCheck } from "./check.js";

/** How to point a provider at another bubblewrap, for the fix line: its env variable and `--option` form. */
export interface BubblewrapHint {
  readonly provider: string;
  readonly env: string;
  readonly option: string;
}

/**
 * Whether the bubblewrap binary at `path` exists, runs, and which version it
 * is. Missing or broken, it fails with the fix: install it, or point the
 * provider's option at it.
 */
export function bubblewrapCheck(path: string, hint: BubblewrapHint): DoctorCheck {
  const fix =
    "install bubblewrap (apt-get install bubblewrap; dnf install bubblewrap), or point " +
    `${hint.env} (--option ${hint.option}=PATH) at it; without it, only unisolated host processes ` +
    `(--option isolation=none) can run`;
  try {
    accessSync(path, constants.X_OK);
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === "ENOENT" ? "not found" : "not executable";
    return { scope: hint.provider, name: "bubblewrap", status: "fail", detail: `${path}: ${why}`, fix };
  }
  try {
    const version = execFileSync(path, ["--version"], { encoding: "utf8", timeout: 5_000, stdio: "pipe" }).trim();
    return { scope: hint.provider, name: "bubblewrap", status: "ok", detail: `${version} at ${path}` };
  } catch (error) {
    const why = error instanceof Error ? error.message.split("\n")[0] : String(error);
    return { scope: hint.provider, name: "bubblewrap", status: "fail", detail: `${path} does not run: ${why}`, fix };
  }
}
