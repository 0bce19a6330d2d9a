/**
 * Environment variables `E2BRuntime` sets on the processes it starts, so it can
 * find them again in envd's process list and kill whole process trees. They are
 * reserved: a launch or request env that sets one is refused with `INVALID_REQUEST`.
 */

/** Tags an async command's process with its session id. */
export const SESSION_ENV = "SANDPORT_SESSION_ID";
/** Tags an async command's process with its command id. */
export const COMMAND_ENV = "SANDPORT_COMMAND_ID";
/**
 * A unique id for each command. Its descendants inherit it, so a kill can find
 * the whole tree (`markerSweepScript`): envd's own kill signals only the top
 * process, and children it leaves behind would keep running.
 */
export const EXEC_MARKER_ENV = "SANDPORT_EXEC_ID";

/** Every variable above. */
export const RESERVED_ENV: readonly string[] = [SESSION_ENV, COMMAND_ENV, EXEC_MARKER_ENV];
