import { invalidRequest } from "../errors/factories.js";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Checks an environment map: names match `[A-Za-z_][A-Za-z0-9_]*`, values are
 * strings without NUL. Returns a frozen copy. Throws `INVALID_REQUEST` otherwise.
 */
export function validateEnv(
  env: unknown,
  field = "env",
  provider?: string,
): Readonly<Record<string, string>> | undefined {
  if (env === undefined) return undefined;
  if (typeof env !== "object" || env === null || Array.isArray(env)) {
    throw invalidRequest(`${field} must be an object of name → string`, { field }, provider);
  }
  const copy: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (!ENV_NAME.test(name)) {
      throw invalidRequest(
        `${field} name ${JSON.stringify(name)} is not a valid variable name`,
        { field, name },
        provider,
      );
    }
    if (typeof value !== "string") {
      throw invalidRequest(`${field}.${name} must be a string`, { field, name }, provider);
    }
    if (value.includes("\u0000")) {
      throw invalidRequest(`${field}.${name} contains a NUL byte`, { field, name }, provider);
    }
    copy[name] = value;
  }
  return Object.freeze(copy);
}

/**
 * Refuses (`INVALID_REQUEST`) an env that sets any of `reserved`: variables a
 * runtime adds itself (process markers, session tags) and must not let a caller
 * forge or silently lose.
 */
export function refuseReservedEnv(
  env: Readonly<Record<string, string>> | undefined,
  reserved: readonly string[],
  field = "env",
  provider?: string,
): void {
  for (const name of reserved) {
    if (env && Object.hasOwn(env, name)) {
      throw invalidRequest(
        `${field}.${name} is reserved by the ${provider ?? "sandport"} runtime`,
        { field, name },
        provider,
      );
    }
  }
}
