/**
 * The resource kinds the emulated API server serves, with their groups and
 * names, and the labels and annotations agent-sandbox puts on them.
 *
 * @module
 */

import type { KindName } from "./status.js";

/** One served resource kind. */
export interface ResourceKind extends KindName {
  /** API version within the group. */
  readonly version: string;
  /** `kind` of one object. */
  readonly kind: string;
}

/** `apiVersion` of an object of this kind (`group/version`, or `version` for the core group). */
export function apiVersionOf(kind: ResourceKind): string {
  return kind.group === "" ? kind.version : `${kind.group}/${kind.version}`;
}

/** `SandboxClaim`, extensions.agents.x-k8s.io/v1beta1. */
export const CLAIMS: ResourceKind = {
  group: "extensions.agents.x-k8s.io",
  version: "v1beta1",
  plural: "sandboxclaims",
  kind: "SandboxClaim",
};
/** `SandboxTemplate`, extensions.agents.x-k8s.io/v1beta1. */
export const TEMPLATES: ResourceKind = {
  group: "extensions.agents.x-k8s.io",
  version: "v1beta1",
  plural: "sandboxtemplates",
  kind: "SandboxTemplate",
};
/** `SandboxWarmPool`, extensions.agents.x-k8s.io/v1beta1. */
export const WARM_POOLS: ResourceKind = {
  group: "extensions.agents.x-k8s.io",
  version: "v1beta1",
  plural: "sandboxwarmpools",
  kind: "SandboxWarmPool",
};
/** `Sandbox`, agents.x-k8s.io/v1beta1. */
export const SANDBOXES: ResourceKind = {
  group: "agents.x-k8s.io",
  version: "v1beta1",
  plural: "sandboxes",
  kind: "Sandbox",
};
/** Core `Pod`, v1. */
export const PODS: ResourceKind = { group: "", version: "v1", plural: "pods", kind: "Pod" };

/** Labels and annotations of agent-sandbox (api/v1beta1/sandbox_types.go, extensions/api/v1beta1/sandboxclaim_types.go). */
export const AGENT_SANDBOX_KEYS = {
  /** On the claim: the adopted Sandbox's name. */
  sandboxName: "agents.x-k8s.io/sandbox-name",
  /** On the Sandbox: its pod's name. */
  podName: "agents.x-k8s.io/pod-name",
  /** On the Sandbox: the template it was made from. */
  templateRef: "agents.x-k8s.io/sandbox-template-ref",
  /** On the Sandbox: `cold` or `warm`. */
  launchType: "agents.x-k8s.io/launch-type",
  /** On a warm-pool Sandbox not yet adopted: the pool's name. */
  warmPool: "agents.x-k8s.io/warm-pool-sandbox",
} as const;
