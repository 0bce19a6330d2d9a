import { composeShellCommand, type ExecRequest } from "@sandport/core";
import { assertCommandFits, validCommand } from "@sandport/core/adapter";
import { PROVIDER } from "./handle.js";
import type { ResolvedOptions } from "./options.js";

/** A validated command, ready to start on either data plane: argv `["sh", "-c", script]`. */
export interface CommandPlan {
  /** The script `sh -c` runs: the `cd`, the env, then the command (`composeShellCommand`). */
  readonly script: string;
  /** The working directory, absolute (the script changes to it). */
  readonly cwd: string;
  /** Run budget in ms, enforced by the command engine. */
  readonly timeoutMs: number;
  /** Output cap in bytes (stdout + stderr). */
  readonly maxOutputBytes: number;
  /** Bytes written to the command's stdin, which is then closed (`exec`); or the first write of a spawn. */
  readonly stdin?: string | Uint8Array;
  /** Whether stdin stays open after {@link stdin} (spawn). */
  readonly openStdin: boolean;
  /** Value of `EXEC_MARKER_ENV` for this command: its processes carry it, so a sweep finds them. */
  readonly marker: string;
}

/**
 * Validates a request and turns it into one `sh -c` script. The working
 * directory and env are written into the script rather than sent as
 * sandboxd's `cwd` and `env_vars`: sandboxd confines `cwd` to its root
 * (`/workspace`), and the pod exec subresource takes neither, so both data
 * planes run the same script. The workspace root is made first when
 * missing (`composeShellCommand`'s `workspace`). A `cd` that fails exits 66
 * (`MISSING_CWD_EXIT`), read as `NOT_FOUND`. Stdin goes to the process's
 * own stdin (sandboxd `WriteStdin`, the exec WebSocket's channel 0), never
 * into the script.
 */
export function planCommand(options: ResolvedOptions, request: ExecRequest, openStdin = false): CommandPlan {
  const { valid, timeoutMs, maxOutputBytes, env, cwd, marker } = validCommand(options, request, PROVIDER);
  // The workspace root is made by the command that first runs in it: a launch does not make it.
  const composed = composeShellCommand({ request: valid, cwd, env, workspace: options.workspaceRoot });
  // A command given no stdin reads none (sandboxd and the exec stream would otherwise keep a pipe open).
  const script = openStdin || valid.stdin !== undefined ? composed : `exec 0</dev/null && ${composed}`;
  assertCommandFits(script, PROVIDER);
  return {
    script,
    cwd,
    timeoutMs,
    maxOutputBytes,
    openStdin,
    marker,
    ...(valid.stdin === undefined ? {} : { stdin: valid.stdin }),
  };
}
