/**
 * Names `DaytonaRuntime` reserves. A launch or request that sets one is
 * refused with `INVALID_REQUEST`.
 */

/**
 * A unique id in the environment of each command the runtime starts. Its
 * descendants inherit it, so a kill finds the whole tree (`markerSweepScript`),
 * including what escaped the daemon's process group with `setsid`.
 */
export const EXEC_MARKER_ENV = "SANDPORT_EXEC_ID";

/** Every reserved environment variable. */
export const RESERVED_ENV: readonly string[] = [EXEC_MARKER_ENV];

/**
 * The label the Daytona SDK sets on every sandbox it creates (to the code
 * language, `python` by default). A caller's label of that name would be
 * overwritten, so launches refuse it and handles leave it out.
 */
export const SDK_LANGUAGE_LABEL = "code-toolbox-language";
