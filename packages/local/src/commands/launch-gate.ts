/**
 * The descriptor on which a gated command (`SpawnPlan.gate`) waits for its
 * runtime's "go": past bubblewrap's `--args 3` and the namespace descriptors
 * 4-8 of a shared-scope command, and below 10, since `sh` (dash) names only
 * single-digit descriptors in a redirection.
 */
export const GATE_DESCRIPTOR = 9;

/** What the runtime writes on the gate, once the command is registered: one line. */
export const LAUNCH_GO = "go\n";

/** Exit status of a gated command whose runtime died before letting it go (nobody is left to read it). */
export const GATE_CLOSED_EXIT = 125;

/**
 * The first thing a command runs inside its sandbox, as `sh -c
 * LAUNCH_GATE_SCRIPT sh <command…>`: it reads one line from
 * {@link GATE_DESCRIPTOR}, closes it and `exec`s the command, or exits when
 * it reads end-of-file instead. Only the runtime process holds the pipe's
 * other end, and writes the line once the command is registered (its marker
 * in `running/` written, see `RunningMarkers`): a runtime that dies before
 * that (SIGKILL, a crash) closes the pipe, and nothing of the user's ever runs
 * unregistered. By the time the gate runs, bubblewrap has parsed its
 * arguments and set `--die-with-parent`; one whose runtime died before it did
 * is found by `destroy` through the marker, whose owner is dead.
 */
export const LAUNCH_GATE_SCRIPT = `read -r _ <&${GATE_DESCRIPTOR} || exit ${GATE_CLOSED_EXIT}; exec ${GATE_DESCRIPTOR}<&-; exec "$@"`;

/**
 * {@link LAUNCH_GATE_SCRIPT} for a command that joins its sandbox's PID
 * namespace: once let go it answers one line on the gate before `exec`ing
 * the command, so that the runtime knows it passed. bubblewrap can kill such
 * a command before that (see `awaitPidNamespaceHandoff`); one that ended
 * without answering ran nothing, and is started again.
 */
export const ACKNOWLEDGED_LAUNCH_GATE_SCRIPT = `read -r _ <&${GATE_DESCRIPTOR} || exit ${GATE_CLOSED_EXIT}; echo >&${GATE_DESCRIPTOR}; exec ${GATE_DESCRIPTOR}<&-; exec "$@"`;

/** `command`, behind the gate. */
export function gated(command: readonly string[]): string[] {
  return ["/bin/sh", "-c", LAUNCH_GATE_SCRIPT, "sh", ...command];
}
