/**
 * Environment variables a runtime sets on the processes it starts, so it can
 * find them again in the sandbox's process list and kill whole process trees.
 * They are reserved: a launch or request env that sets one is refused with
 * `INVALID_REQUEST` (`refuseReservedEnv(env, RESERVED_ENV, ...)`).
 */

/**
 * A unique id for each command. Its descendants inherit it, so a kill can find
 * the whole tree (`markerSweepScript`): a provider's own kill often signals
 * only the top process, and children it leaves behind would keep running.
 */
export const EXEC_MARKER_ENV = "SANDPORT_EXEC_ID";
/** Tags an async command's process with its session id (`startCommand`). */
export const SESSION_ENV = "SANDPORT_SESSION_ID";
/** Tags an async command's process with its command id (`startCommand`). */
export const COMMAND_ENV = "SANDPORT_COMMAND_ID";

/** Every variable above: no caller env may set them. */
export const RESERVED_ENV: readonly string[] = Object.freeze([EXEC_MARKER_ENV, SESSION_ENV, COMMAND_ENV]);
