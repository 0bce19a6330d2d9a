// The real microsandbox SDK for the emulator's wire tests (Node >= 22 only:
// import this from *.node22.test.ts files). Its backend setting is
// process-wide, but every call captures it when it is made and every Sandbox
// keeps the one it was created with, so `onBackend` switches it for exactly
// one call.

import * as microsandbox from "microsandbox";

export { microsandbox };
export type DefaultBackend = microsandbox.DefaultBackend;

/**
 * Make `call` (which must not await before its first SDK call) with `backend`
 * as the default, then restore `restore`. The returned promise is the call's.
 */
export function onBackend<T>(backend: DefaultBackend, restore: DefaultBackend, call: () => Promise<T>): Promise<T> {
  microsandbox.setDefaultBackend(backend);
  try {
    return call();
  } finally {
    microsandbox.setDefaultBackend(restore);
  }
}
