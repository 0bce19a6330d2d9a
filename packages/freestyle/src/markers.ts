/**
 * Environment variables `FreestyleRuntime` sets on the commands it runs. They
 * are reserved: a launch or request env that sets one is refused with `INVALID_REQUEST`.
 */

/**
 * A unique id for each command. Its descendants inherit it, so a kill can find
 * the whole tree (`markerSweepScript`): the API runs a command detached from
 * the request, so a caller's abort or deadline stops the command only through
 * this sweep.
 */
export const EXEC_MARKER_ENV = "SANDPORT_EXEC_ID";

/** Every variable above. */
export const RESERVED_ENV: readonly string[] = [EXEC_MARKER_ENV];
