/**
 * The parts of the agent-sandbox resources (v1beta1) and of core objects
 * this adapter reads or writes, as the API server answers them in JSON.
 * Field names follow api/v1beta1/sandbox_types.go and
 * extensions/api/v1beta1/sandboxclaim_types.go.
 */

/** `metadata` of any object. */
export interface ObjectMeta {
  readonly name?: string;
  readonly generateName?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly creationTimestamp?: string;
  readonly deletionTimestamp?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}

/** A `metav1.Condition`. */
export interface Condition {
  readonly type: string;
  readonly status: "True" | "False" | "Unknown";
  readonly reason?: string;
  readonly message?: string;
}

/** `SandboxClaim` (`extensions.agents.x-k8s.io/v1beta1`). */
export interface SandboxClaim {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: ObjectMeta;
  readonly spec: {
    readonly warmPoolRef: { readonly name: string };
    readonly lifecycle?: {
      readonly shutdownTime?: string;
      readonly shutdownPolicy?: "Delete" | "DeleteForeground" | "Retain";
    };
    readonly additionalPodMetadata?: {
      readonly labels?: Record<string, string>;
      readonly annotations?: Record<string, string>;
    };
    readonly env?: readonly { readonly name: string; readonly value: string }[];
  };
  readonly status?: {
    readonly conditions?: readonly Condition[];
    readonly sandbox?: { readonly name?: string; readonly podIPs?: readonly string[] };
  };
}

/** `Sandbox` (`agents.x-k8s.io/v1beta1`). */
export interface Sandbox {
  readonly metadata: ObjectMeta;
  readonly spec?: {
    readonly operatingMode?: "Running" | "Suspended";
    /** The pod the sandbox runs (required by the CRD); its containers name the one commands go to. */
    readonly podTemplate?: { readonly spec?: { readonly containers?: readonly { readonly name: string }[] } };
  };
  readonly status?: { readonly conditions?: readonly Condition[]; readonly podIPs?: readonly string[] };
}

/** A core `Pod`, as far as pod exec needs it. */
export interface Pod {
  readonly metadata: ObjectMeta;
  readonly spec?: { readonly containers?: readonly { readonly name: string }[] };
  readonly status?: { readonly phase?: string };
}

/** A list answer. */
export interface ObjectList<T> {
  readonly metadata?: { readonly resourceVersion?: string };
  readonly items: readonly T[];
}

/** One line of a watch stream. */
export interface WatchEvent<T> {
  readonly type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  readonly object: T;
}

/** The annotation on a claim naming the sandbox it adopted (or made). */
export const SANDBOX_NAME_ANNOTATION = "agents.x-k8s.io/sandbox-name";
/** The annotation on a sandbox naming its pod. */
export const POD_NAME_ANNOTATION = "agents.x-k8s.io/pod-name";

/** The condition of `type` on an object's status, if it has one. */
export function conditionOf(
  object: { readonly status?: { readonly conditions?: readonly Condition[] } } | undefined,
  type: string,
): Condition | undefined {
  return object?.status?.conditions?.find((condition) => condition.type === type);
}
