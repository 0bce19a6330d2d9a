/**
 * The environment variable `ModalRuntime` sets on every command it starts, so
 * a kill can find the command's whole process tree (`markerSweepScript`):
 * Modal has no call that kills an exec. It is reserved: a launch or request
 * env that sets it is refused with `INVALID_REQUEST`.
 */
export const EXEC_MARKER_ENV = "SANDPORT_EXEC_ID";

/** Every reserved variable. */
export const RESERVED_ENV: readonly string[] = [EXEC_MARKER_ENV];
