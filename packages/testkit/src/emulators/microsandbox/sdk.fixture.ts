// The real microsandbox SDK for the emulator's wire tests (Node >= 22 only:
// import this from *.node22.test.ts files). Its backend setting is
// process-wide and every Sandbox keeps the one it was created with, so
// `onBackend` switches it for one call, until that call settles (a call may
// read it after an await of its own).

import * as microsandbox from "microsandbox";

export { microsandbox };
export type DefaultBackend = microsandbox.DefaultBackend;

/**
 * Make `call` with `backend` as the default, and restore `restore` once it
 * settled. Calls on other backends must not run meanwhile (tests of one file
 * run one at a time).
 */
export async function onBackend<T>(
  backend: DefaultBackend,
  restore: DefaultBackend,
  call: () => Promise<T>,
): Promise<T> {
  microsandbox.setDefaultBackend(backend);
  try {
    return await call();
  } finally {
    microsandbox.setDefaultBackend(restore);
  }
}
