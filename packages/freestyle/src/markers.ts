/**
 * The environment variables this runtime sets on the processes it starts and
 * refuses in a caller's env: the port's reserved names (`EXEC_MARKER_ENV`,
 * `SESSION_ENV`, `COMMAND_ENV`, all in `RESERVED_ENV`), re-exported so the
 * adapter's files import them from one place.
 */
export { COMMAND_ENV, EXEC_MARKER_ENV, RESERVED_ENV, SESSION_ENV } from "@sandport/core";
