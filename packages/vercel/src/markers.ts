/**
 * The environment variable `VercelRuntime` sets on the commands it
 * runs, so it can find and kill whole process trees. It is reserved: a launch
 * or request env that sets it is refused with `INVALID_REQUEST`.
 */

/**
 * A unique id for each command. Its descendants inherit it, so a kill can
 * find the whole tree (`markerSweepScript`): a waited command cannot be
 * killed through the API (its id is not known until it ends), and children
 * that left its process group would outlive a kill of the group.
 */
export const EXEC_MARKER_ENV = "SANDPORT_EXEC_ID";

/** Every reserved variable. */
export const RESERVED_ENV: readonly string[] = [EXEC_MARKER_ENV];
