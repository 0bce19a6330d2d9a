import { invalidRequest } from "../errors/factories.js";
import type { SandboxHandle } from "../port/sandbox-handle.js";
import { callerLabels } from "./ownership.js";

/**
 * Checks that `handle` is a handle of this provider (an object with a
 * non-empty string `id` and the right `provider`) and returns its id. Throws
 * `INVALID_REQUEST` before any provider call; the id's own format is the
 * adapter's to check.
 */
export function checkHandle(handle: unknown, provider: string, operation: string): string {
  const candidate = handle as { id?: unknown; provider?: unknown } | null;
  if (typeof candidate !== "object" || candidate === null || typeof candidate.id !== "string" || candidate.id === "") {
    throw invalidRequest(`${operation} needs a sandbox handle with an id`, { field: "handle" }, provider);
  }
  if (candidate.provider !== provider) {
    throw invalidRequest(
      `${operation} got a handle from provider ${JSON.stringify(candidate.provider)}, not ${provider}`,
      { field: "handle", handleProvider: candidate.provider },
      provider,
    );
  }
  return candidate.id;
}

/** A handle of provider `P`. */
export type ProviderHandle<P extends string> = SandboxHandle & { readonly provider: P };

/** What a provider's sandbox ids look like, checked before an id reaches a URL or a request. */
export interface SandboxIdRule {
  /** True for an id that can name one of the provider's sandboxes: a pattern, or a test. */
  readonly valid: RegExp | ((id: string) => boolean);
  /** The refusal's message (`INVALID_REQUEST`, `details.field` `"id"`), saying what an id looks like. */
  readonly refusal: string;
}

/** One provider's handle rules, from {@link handleRecipe}. */
export interface HandleRecipe<P extends string> {
  /**
   * Refuses (`INVALID_REQUEST`) an id that cannot name one of the provider's
   * sandboxes, before it reaches a URL: ids like `..`, `/etc` or `a/b` would
   * otherwise address other routes.
   */
  readonly validId: (id: unknown) => string;
  /** The sandbox id of a handle: a handle of this provider ({@link checkHandle}) whose id passes `validId`. */
  readonly idOf: (handle: unknown, operation: string) => string;
  /**
   * A handle from what the provider reports (the caller checks ownership
   * first): the caller's labels without the reserved ones, and the creation
   * time as ISO-8601 when the provider gave a valid one.
   */
  readonly toHandle: (
    id: string,
    labels: Readonly<Record<string, string>> | undefined,
    createdAt?: Date | string | number | null,
  ) => ProviderHandle<P>;
}

/**
 * The handle rules every remote adapter has, for `provider` and its id
 * format: the id check, the handle check with it (the context's
 * `sandboxIdOf`), and the handle built from a vendor record.
 */
export function handleRecipe<P extends string>(provider: P, rule: SandboxIdRule): HandleRecipe<P> {
  const { valid, refusal } = rule;
  const validId = (id: unknown): string => {
    if (typeof id !== "string" || !(typeof valid === "function" ? valid(id) : valid.test(id))) {
      throw invalidRequest(refusal, { field: "id" }, provider);
    }
    return id;
  };
  return {
    validId,
    idOf: (handle, operation) => validId(checkHandle(handle, provider, operation)),
    toHandle: (id, labels, createdAt) => {
      const created = createdAt === undefined || createdAt === null ? undefined : new Date(createdAt);
      return {
        id,
        provider,
        labels: callerLabels(labels),
        ...(created === undefined || Number.isNaN(created.getTime()) ? {} : { createdAt: created.toISOString() }),
      };
    },
  };
}
