import { sandboxNotFound } from "./sandbox-errors.js";

/**
 * A rejection handler for a vendor call on one sandbox: an error the vendor
 * uses to say the sandbox is absent (`isAbsent`) becomes `NOT_FOUND` naming
 * it (`sandboxNotFound`, the vendor error as `cause`); any other goes on as
 * it is, or through `mapOther`. `call().catch(absentAs(...))`.
 */
export function absentAs(
  provider: string,
  isAbsent: (error: unknown) => boolean,
  sandboxId: string,
  operation: string,
  mapOther: (error: unknown) => unknown = (error) => error,
): (error: unknown) => never {
  return (error) => {
    throw isAbsent(error) ? sandboxNotFound(provider, sandboxId, operation, error) : mapOther(error);
  };
}
