import {
  invalidRequest,
  LAUNCH_KEY_LABEL,
  type Labels,
  OWNER_LABEL,
  RESERVED_LABEL_PREFIX,
  type SandboxHandle,
  SandportError,
} from "@sandport/core";
import type { E2BSandboxInfo } from "./internal/sdk-types.js";
import { PROVIDER } from "./options.js";

/** A handle to an E2B sandbox. Plain data; rebuild it in another process with `getById`. */
export interface E2BHandle extends SandboxHandle {
  /** Always `"e2b"`. */
  readonly provider: "e2b";
}

/** The metadata a launch stores: caller labels plus the ownership marker and the launch key. */
export function launchMetadata(owner: string, labels: Labels | undefined, launchKey: string): Record<string, string> {
  return { ...labels, [OWNER_LABEL]: owner, [LAUNCH_KEY_LABEL]: launchKey };
}

/** True when the metadata carries this runtime's ownership marker. */
export function isOwned(metadata: Readonly<Record<string, string>> | undefined, owner: string): boolean {
  return metadata?.[OWNER_LABEL] === owner;
}

/** True when every requested label (reserved ones included) is present with the same value. */
export function matchesLabels(metadata: Readonly<Record<string, string>>, labels: Labels): boolean {
  return Object.entries(labels).every(([key, value]) => metadata[key] === value);
}

/** Caller labels from provider metadata: everything except Sandport's reserved `sandport.*` keys. */
export function callerLabels(metadata: Readonly<Record<string, string>> | undefined): Labels {
  return Object.freeze(
    Object.fromEntries(Object.entries(metadata ?? {}).filter(([key]) => !key.startsWith(RESERVED_LABEL_PREFIX))),
  );
}

/** A handle from what the provider reports. The caller checks ownership first. */
export function handleFromInfo(info: E2BSandboxInfo): E2BHandle {
  const startedAt = info.startedAt instanceof Date ? info.startedAt : new Date(info.startedAt);
  return {
    id: info.sandboxId,
    provider: PROVIDER,
    labels: callerLabels(info.metadata),
    ...(Number.isNaN(startedAt.getTime()) ? {} : { createdAt: startedAt.toISOString() }),
  };
}

/** The `FOREIGN_SANDBOX` refusal for a sandbox that exists but is not ours. */
export function foreignSandbox(sandboxId: string, operation: string): SandportError {
  return new SandportError({
    code: "FOREIGN_SANDBOX",
    provider: PROVIDER,
    retryable: false,
    message: `e2b sandbox ${sandboxId} does not carry this runtime's ownership marker; refusing to ${operation} it`,
    details: { sandboxId, operation },
  });
}

const SANDBOX_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Refuses (`INVALID_REQUEST`) an id that cannot be an E2B sandbox id, before it
 * reaches a URL: ids like `..`, `/etc` or `a/b` would otherwise address other routes.
 */
export function assertSandboxId(sandboxId: unknown): asserts sandboxId is string {
  if (typeof sandboxId !== "string" || !SANDBOX_ID.test(sandboxId)) {
    throw invalidRequest("sandbox id must be 1-128 characters of [A-Za-z0-9_-]", {}, PROVIDER);
  }
}
