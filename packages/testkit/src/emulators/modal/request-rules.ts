/**
 * Limits Modal documents for what a create or an exec carries, each answered
 * `INVALID_ARGUMENT` with the message the SDK itself gives when it checks the
 * same rule client-side (`modal` 0.11 `dist/index.cjs`: `checkObjectName`,
 * `validateEnvVarKeys`, `validateExecArgs`, `buildSandboxCreateRequestProto`).
 * The SDK checks them before sending; the emulator checks them again, so a
 * request built another way is refused the way the control plane would.
 *
 * @module
 */

import { GrpcError } from "./grpc-status.js";

/** Characters of an object (Sandbox, App) name. */
const OBJECT_NAME_CHARSET = /^[a-zA-Z0-9\-_.]+$/;
/** An App id, which a name must not look like. */
const APP_ID_PATTERN = /^ap-[a-zA-Z0-9]{22}$/;
/** Longest object name. */
const MAX_OBJECT_NAME_LENGTH = 64;
/** An environment variable name. */
const ENV_VAR_KEY = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** Most bytes the arguments of one command may add up to (ARG_MAX). */
export const ARG_MAX_BYTES = 2 ** 16;

/** Refuse a Sandbox name Modal does not accept. */
export function checkSandboxName(name: string): void {
  if (name.length <= MAX_OBJECT_NAME_LENGTH && OBJECT_NAME_CHARSET.test(name) && !APP_ID_PATTERN.test(name)) return;
  throw new GrpcError(
    "INVALID_ARGUMENT",
    `Invalid Sandbox name: '${name}'.\n\nNames may contain only alphanumeric characters, dashes, periods, and underscores, must be shorter than 64 characters, and cannot conflict with App ID strings.`,
  );
}

/** Refuse environment variable names Modal does not accept. */
export function checkEnvKeys(env: Readonly<Record<string, string>>): void {
  for (const key of Object.keys(env)) {
    if (ENV_VAR_KEY.test(key)) continue;
    throw new GrpcError(
      "INVALID_ARGUMENT",
      `Secret key name ${JSON.stringify(key)} is invalid for environment variables. Only letters, numbers, and underscores are allowed, and the name may not start with a number.`,
    );
  }
}

/** Refuse a command whose arguments add up to more than {@link ARG_MAX_BYTES}. */
export function checkExecArgs(argv: readonly string[]): void {
  const total = argv.reduce((sum, argument) => sum + argument.length, 0);
  if (total <= ARG_MAX_BYTES) return;
  throw new GrpcError(
    "INVALID_ARGUMENT",
    `Total length of CMD arguments must be less than ${ARG_MAX_BYTES} bytes (ARG_MAX). Got ${total} bytes.`,
  );
}

/** Refuse an idle timeout that is set but not positive. */
export function checkIdleTimeout(idleTimeoutSecs: number | undefined): void {
  if (idleTimeoutSecs === undefined || (Number.isInteger(idleTimeoutSecs) && idleTimeoutSecs > 0)) return;
  throw new GrpcError("INVALID_ARGUMENT", `idleTimeout must be positive, got ${idleTimeoutSecs} seconds`);
}
