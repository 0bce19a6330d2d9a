/**
 * Environment variables `MicrosandboxRuntime` sets on the commands it starts.
 * They are reserved: a launch or request env that sets one is refused with
 * `INVALID_REQUEST`.
 */

/**
 * A unique id for each command. Its descendants inherit it, so a kill can find
 * the whole tree (`markerSweepScript`): agentd's kill signals only the command's
 * own process, and children it leaves behind would keep running.
 */
export const EXEC_MARKER_ENV = "SANDPORT_EXEC_ID";

/** Every variable above. */
export const RESERVED_ENV: readonly string[] = [EXEC_MARKER_ENV];
