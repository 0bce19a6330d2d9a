import type { StdioOptions } from "node:child_process";
import { openSync, readdirSync, readFileSync } from "node:fs";

/** `O_CLOEXEC` in the octal `flags:` line of `/proc/self/fdinfo/<fd>`. */
const O_CLOEXEC = 0o2000000;

let inherited: readonly number[] | undefined;
let devNull: number | undefined;

/**
 * Looks again for descriptors of this process that a child would inherit:
 * those without close-on-exec, beyond stdin, stdout and stderr. Everything
 * Node opens is close-on-exec, so these come from whoever started the process
 * (`node app.js 200>>log`, a CI runner's pipes, an IPC channel) or from native
 * code. Reads `/proc/self/fdinfo` (Linux; elsewhere nothing is found): one
 * file per open descriptor, so it runs when a runtime is created, not on
 * every launch or command.
 */
export function rescanInheritedDescriptors(): void {
  inherited = scan();
}

/**
 * `stdio` for `spawn`, extended so that every inherited descriptor (see
 * {@link rescanInheritedDescriptors}; scanned on first use) is replaced in the
 * child by `/dev/null`, opened read-only: only the child's own stdio and the
 * runtime's pipes cross into a sandbox. Node's `spawn` has no "close other
 * descriptors" option, but it `dup2`s every stdio entry onto its index in the
 * child, which overwrites the inherited one before the program starts.
 */
export function coverInheritedDescriptors(stdio: StdioOptions & unknown[]): StdioOptions {
  inherited ??= scan();
  if (inherited.length === 0) return stdio;
  devNull ??= openSync("/dev/null", "r");
  const covered: unknown[] = [...stdio];
  for (const descriptor of inherited) {
    // A lower one is already replaced by the caller's own entry at that index.
    if (descriptor < covered.length) continue;
    while (covered.length < descriptor) covered.push("ignore");
    covered.push(devNull);
  }
  return covered as StdioOptions;
}

function scan(): number[] {
  let names: string[];
  try {
    names = readdirSync("/proc/self/fd");
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of names) {
    const descriptor = Number(name);
    if (descriptor < 3 || descriptor === devNull) continue;
    let info: string;
    try {
      info = readFileSync(`/proc/self/fdinfo/${descriptor}`, "latin1");
    } catch {
      // Closed meanwhile (the listing's own descriptor among them).
      continue;
    }
    const flags = /^flags:\s*([0-7]+)/m.exec(info);
    if (flags && (Number.parseInt(flags[1] as string, 8) & O_CLOEXEC) === 0) found.push(descriptor);
  }
  return found.sort((a, b) => a - b);
}
