/**
 * Kubernetes `Status` objects: the body of every API-server error, and the
 * object of a watch `ERROR` event.
 *
 * @module
 */

/** The `reason` values the emulator answers with (metav1.StatusReason). */
export type StatusReason =
  | "Unauthorized"
  | "NotFound"
  | "AlreadyExists"
  | "Conflict"
  | "Invalid"
  | "BadRequest"
  | "Expired"
  | "MethodNotAllowed"
  | "UnsupportedMediaType"
  | "InternalError";

/** What a failed request is about, for `details`. */
export interface StatusSubject {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
}

/** An API-server error: the HTTP status plus what goes in the `Status` body. */
export class KubeApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly subject: StatusSubject = {},
  ) {
    super(message);
  }
}

/** A failure `Status` object (`kind: Status`, `status: Failure`). */
export function failureStatus(error: KubeApiError): Record<string, unknown> {
  const details =
    error.subject.name === undefined && error.subject.kind === undefined
      ? undefined
      : {
          ...(error.subject.name === undefined ? {} : { name: error.subject.name }),
          ...(error.subject.group === undefined ? {} : { group: error.subject.group }),
          ...(error.subject.kind === undefined ? {} : { kind: error.subject.kind }),
        };
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: error.message,
    reason: error.reason,
    ...(details === undefined ? {} : { details }),
    code: error.code,
  };
}

/** `404 NotFound` for one named object, worded as the API server words it. */
export function notFound(kind: KindName, name: string): KubeApiError {
  const qualified = kind.group === "" ? kind.plural : `${kind.plural}.${kind.group}`;
  return new KubeApiError(404, "NotFound", `${qualified} "${name}" not found`, {
    name,
    group: kind.group === "" ? undefined : kind.group,
    kind: kind.plural,
  });
}

/** The names of a resource kind that error messages use. */
export interface KindName {
  /** API group, `""` for the core group. */
  readonly group: string;
  /** Lower-case plural (`sandboxclaims`). */
  readonly plural: string;
}
