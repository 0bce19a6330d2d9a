/**
 * The SandboxClaim controller of the emulated cluster: a claim adopts a
 * ready warm Sandbox of its pool (and the pool is replenished), or, with
 * `env` or without a ready warm Sandbox, cold-starts a Sandbox named like the
 * claim from the pool's template; it mirrors the Sandbox's `Ready`
 * condition; `lifecycle.shutdownTime` expires it; deletion is background,
 * foreground (the claim stays, with a deletionTimestamp, until its Sandbox
 * and pod are gone) or orphan.
 *
 * @module
 */

import { type Condition, condition, findCondition, setCondition } from "./conditions.js";
import { AGENT_SANDBOX_KEYS, CLAIMS, SANDBOXES, TEMPLATES, WARM_POOLS } from "./kinds.js";
import type { KubeObject, ObjectStore } from "./object-store.js";
import { isReady, ownerReference, type SandboxController } from "./sandboxes.js";
import { KubeApiError } from "./status.js";

/** `propagationPolicy` of a delete. */
export type PropagationPolicy = "Foreground" | "Background" | "Orphan";

interface ClaimSpec {
  warmPoolRef?: { name?: string };
  lifecycle?: { shutdownTime?: string; shutdownPolicy?: string };
  additionalPodMetadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  env?: Array<{ name: string; value?: string }>;
  volumeClaimTemplates?: unknown[];
}

/** Creates warm pools' Sandboxes, serves claims, expires and deletes them. */
export class ClaimController {
  readonly #expiryTimers = new Map<string, NodeJS.Timeout>();
  readonly #deletions = new Map<string, Promise<void>>();

  constructor(
    readonly store: ObjectStore,
    readonly sandboxes: SandboxController,
  ) {
    sandboxes.observe((sandbox, namespace, name) => this.#mirror(sandbox, namespace, name));
  }

  /** Bring a warm pool to its `spec.replicas` unadopted Sandboxes. */
  fillPool(namespace: string, poolName: string): void {
    const pool = this.store.find(WARM_POOLS, namespace, poolName);
    if (pool === undefined) return;
    const template = this.store.find(TEMPLATES, namespace, String(templateNameOf(pool)));
    if (template === undefined) return;
    const replicas = Number((pool.spec as { replicas?: number }).replicas ?? 0);
    const warm = this.#warmSandboxes(namespace, poolName);
    for (let count = warm.length; count < replicas; count++) {
      this.sandboxes.create({
        namespace,
        generateName: `${poolName}-`,
        labels: { [AGENT_SANDBOX_KEYS.warmPool]: poolName, [AGENT_SANDBOX_KEYS.launchType]: "warm" },
        annotations: { [AGENT_SANDBOX_KEYS.templateRef]: template.metadata.name },
        podTemplate: structuredClone((template.spec?.podTemplate ?? {}) as Record<string, unknown>),
        ownerReferences: [ownerReference(pool, false)],
      });
    }
    this.#refreshPoolStatus(namespace, poolName);
  }

  /** Validate and store a new claim, then serve it. Returns the stored claim (Ready=False). */
  create(namespace: string, body: Record<string, unknown>): KubeObject {
    const spec = (body.spec ?? {}) as ClaimSpec;
    const metadata = (body.metadata ?? {}) as Record<string, unknown>;
    if (typeof spec.warmPoolRef?.name !== "string" || spec.warmPoolRef.name === "") {
      throw new KubeApiError(
        422,
        "Invalid",
        `SandboxClaim.${CLAIMS.group} "${String(metadata.name ?? "")}" is invalid: spec.warmPoolRef.name: Required value`,
        { name: String(metadata.name ?? ""), group: CLAIMS.group, kind: CLAIMS.kind },
      );
    }
    const claim = this.store.create(CLAIMS, {
      ...body,
      metadata: { ...(metadata as object), namespace },
      status: { conditions: [condition("Ready", "False", "SandboxNotReady", "Sandbox is not ready")] },
    });
    this.#serve(claim);
    this.#armExpiry(claim);
    return this.store.get(CLAIMS, namespace, claim.metadata.name);
  }

  /**
   * Delete a claim. Background: gone now, its Sandbox after. Foreground: it
   * stays with a deletionTimestamp and the `foregroundDeletion` finalizer
   * until its Sandbox and pod are gone. Orphan: gone now, the Sandbox stays.
   * Returns the claim as it stands after the call and whether it is still there.
   */
  delete(namespace: string, name: string, policy: PropagationPolicy): { object: KubeObject; pending: boolean } {
    const claim = this.store.get(CLAIMS, namespace, name);
    const key = `${namespace}/${name}`;
    if (claim.metadata.deletionTimestamp !== undefined) return { object: claim, pending: true };
    this.#disarmExpiry(key);
    const sandboxName = this.#ownedSandbox(claim);
    if (policy === "Foreground" && sandboxName !== undefined) {
      const marked = this.store.update(CLAIMS, namespace, name, (object) => {
        object.metadata.deletionTimestamp = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
        object.metadata.finalizers = [...new Set([...(object.metadata.finalizers ?? []), "foregroundDeletion"])];
      });
      const work = this.sandboxes.delete(namespace, sandboxName).finally(() => {
        this.store.remove(CLAIMS, namespace, name);
        this.#deletions.delete(key);
      });
      this.#deletions.set(key, work);
      return { object: marked, pending: true };
    }
    const removed = this.store.remove(CLAIMS, namespace, name) ?? claim;
    if (policy !== "Orphan" && sandboxName !== undefined) {
      const work = this.sandboxes.delete(namespace, sandboxName).finally(() => this.#deletions.delete(key));
      this.#deletions.set(key, work);
    }
    return { object: removed, pending: false };
  }

  /** Wait for every deletion in progress. */
  async settle(): Promise<void> {
    while (this.#deletions.size > 0) await Promise.allSettled([...this.#deletions.values()]);
  }

  /** Stop every expiry timer. */
  shutDown(): void {
    for (const timer of this.#expiryTimers.values()) clearTimeout(timer);
    this.#expiryTimers.clear();
  }

  #serve(claim: KubeObject): void {
    const namespace = claim.metadata.namespace;
    const spec = (claim.spec ?? {}) as ClaimSpec;
    const poolName = spec.warmPoolRef!.name!;
    const pool = this.store.find(WARM_POOLS, namespace, poolName);
    if (pool === undefined) {
      this.#setClaimReady(
        claim,
        condition("Ready", "False", "WarmPoolNotFound", `SandboxWarmPool "${poolName}" not found`),
      );
      return;
    }
    const templateName = String(templateNameOf(pool));
    const template = this.store.find(TEMPLATES, namespace, templateName);
    if (template === undefined) {
      this.#setClaimReady(
        claim,
        condition("Ready", "False", "TemplateNotFound", `SandboxTemplate "${templateName}" not found`),
      );
      return;
    }
    const env = Object.fromEntries((spec.env ?? []).map((entry) => [entry.name, entry.value ?? ""]));
    const policy = String(
      (template.spec as { envVarsInjectionPolicy?: string }).envVarsInjectionPolicy ?? "Disallowed",
    );
    if (Object.keys(env).length > 0 && policy === "Disallowed") {
      this.#setClaimReady(
        claim,
        condition(
          "Ready",
          "False",
          "EnvVarsInjectionRejected",
          `SandboxTemplate "${templateName}" does not allow environment variable injection`,
        ),
      );
      return;
    }
    const extra = spec.additionalPodMetadata ?? {};
    const cold = Object.keys(env).length > 0 || (spec.volumeClaimTemplates ?? []).length > 0;
    const warm = cold ? undefined : this.#warmSandboxes(namespace, poolName).find((sandbox) => isReady(sandbox));
    if (warm !== undefined) {
      const adopted = this.store.update(SANDBOXES, namespace, warm.metadata.name, (object) => {
        const labels = { ...(object.metadata.labels ?? {}) };
        delete labels[AGENT_SANDBOX_KEYS.warmPool];
        object.metadata.labels = labels;
        object.metadata.ownerReferences = [ownerReference(claim, true)];
        const podTemplate = (object.spec?.podTemplate ?? {}) as Record<string, unknown>;
        podTemplate.metadata = mergeMetadata(podTemplate.metadata, extra);
      });
      this.sandboxes.relabelPod(namespace, adopted.metadata.name, extra);
      this.#bind(claim, adopted);
      this.fillPool(namespace, poolName);
      return;
    }
    const podTemplate = structuredClone((template.spec?.podTemplate ?? {}) as Record<string, unknown>);
    podTemplate.metadata = mergeMetadata(podTemplate.metadata, extra);
    const created = this.sandboxes.create({
      namespace,
      name: claim.metadata.name,
      labels: { [AGENT_SANDBOX_KEYS.launchType]: "cold" },
      annotations: { [AGENT_SANDBOX_KEYS.templateRef]: templateName },
      podTemplate,
      ownerReferences: [ownerReference(claim, true)],
      env,
    });
    this.#bind(claim, created);
  }

  #bind(claim: KubeObject, sandbox: KubeObject): void {
    const ready = findCondition(sandbox.status, "Ready");
    this.store.update(CLAIMS, claim.metadata.namespace, claim.metadata.name, (object) => {
      object.metadata.annotations = {
        ...(object.metadata.annotations ?? {}),
        [AGENT_SANDBOX_KEYS.sandboxName]: sandbox.metadata.name,
      };
      const status = { ...(object.status ?? {}) };
      status.sandbox = {
        name: sandbox.metadata.name,
        ...(Array.isArray(sandbox.status?.podIPs) ? { podIPs: sandbox.status.podIPs } : {}),
      };
      if (ready !== undefined) status.conditions = setCondition(status.conditions as Condition[], ready);
      object.status = status;
    });
  }

  /** A Sandbox changed: the claim that owns it mirrors its Ready condition and pod IPs. */
  #mirror(sandbox: KubeObject | undefined, namespace: string, name: string): void {
    const pool = sandbox?.metadata.labels?.[AGENT_SANDBOX_KEYS.warmPool];
    if (pool !== undefined) this.#refreshPoolStatus(namespace, pool);
    const claim = this.store
      .list(CLAIMS, namespace)
      .find((candidate) => (candidate.status?.sandbox as { name?: string } | undefined)?.name === name);
    if (claim === undefined || claim.metadata.deletionTimestamp !== undefined) return;
    if (sandbox === undefined) {
      if (findCondition(claim.status, "Ready")?.reason === "ClaimExpired") return;
      this.#setClaimReady(claim, condition("Ready", "False", "SandboxMissing", "Sandbox does not exist"));
      return;
    }
    this.#bind(claim, sandbox);
  }

  #setClaimReady(claim: KubeObject, ready: Condition): void {
    if (this.store.find(CLAIMS, claim.metadata.namespace, claim.metadata.name) === undefined) return;
    this.store.update(CLAIMS, claim.metadata.namespace, claim.metadata.name, (object) => {
      object.status = { ...(object.status ?? {}) };
      object.status.conditions = setCondition(object.status.conditions as Condition[], ready);
    });
  }

  #armExpiry(claim: KubeObject): void {
    const lifecycle = (claim.spec as ClaimSpec).lifecycle;
    if (lifecycle?.shutdownTime === undefined) return;
    const at = Date.parse(lifecycle.shutdownTime);
    if (Number.isNaN(at)) return;
    const key = `${claim.metadata.namespace}/${claim.metadata.name}`;
    const timer = setTimeout(
      () => this.#expire(claim.metadata.namespace, claim.metadata.name),
      Math.max(0, at - Date.now()),
    );
    timer.unref();
    this.#expiryTimers.set(key, timer);
  }

  #disarmExpiry(key: string): void {
    const timer = this.#expiryTimers.get(key);
    if (timer !== undefined) clearTimeout(timer);
    this.#expiryTimers.delete(key);
  }

  #expire(namespace: string, name: string): void {
    this.#expiryTimers.delete(`${namespace}/${name}`);
    const claim = this.store.find(CLAIMS, namespace, name);
    if (claim === undefined || claim.metadata.deletionTimestamp !== undefined) return;
    const policy = (claim.spec as ClaimSpec).lifecycle?.shutdownPolicy ?? "Delete";
    if (policy === "Retain") {
      this.#setClaimReady(
        claim,
        condition("Ready", "False", "ClaimExpired", "Claim expired. Sandbox cleanup initiated."),
      );
      const sandboxName = this.#ownedSandbox(claim);
      if (sandboxName !== undefined) {
        const key = `${namespace}/${name}`;
        this.#deletions.set(
          key,
          this.sandboxes.delete(namespace, sandboxName).finally(() => this.#deletions.delete(key)),
        );
      }
      return;
    }
    this.delete(namespace, name, policy === "DeleteForeground" ? "Foreground" : "Background");
  }

  /** The Sandbox this claim owns, if it still exists. */
  #ownedSandbox(claim: KubeObject): string | undefined {
    const name = (claim.status?.sandbox as { name?: string } | undefined)?.name;
    if (name === undefined) return undefined;
    const sandbox = this.store.find(SANDBOXES, claim.metadata.namespace, name);
    const owned = sandbox?.metadata.ownerReferences?.some((owner) => owner.uid === claim.metadata.uid);
    return owned ? name : undefined;
  }

  #warmSandboxes(namespace: string, poolName: string): KubeObject[] {
    return this.store
      .list(SANDBOXES, namespace)
      .filter(
        (sandbox) =>
          sandbox.metadata.labels?.[AGENT_SANDBOX_KEYS.warmPool] === poolName &&
          sandbox.metadata.deletionTimestamp === undefined,
      );
  }

  #refreshPoolStatus(namespace: string, poolName: string): void {
    const pool = this.store.find(WARM_POOLS, namespace, poolName);
    if (pool === undefined) return;
    const warm = this.#warmSandboxes(namespace, poolName);
    const replicas = warm.length;
    const readyReplicas = warm.filter((sandbox) => isReady(sandbox)).length;
    const status = (pool.status ?? {}) as { replicas?: number; readyReplicas?: number };
    if (status.replicas === replicas && status.readyReplicas === readyReplicas) return;
    this.store.update(WARM_POOLS, namespace, poolName, (object) => {
      object.status = {
        ...(object.status ?? {}),
        replicas,
        readyReplicas,
        selector: `${AGENT_SANDBOX_KEYS.warmPool}=${poolName}`,
      };
    });
  }
}

function templateNameOf(pool: KubeObject): unknown {
  return (pool.spec as { sandboxTemplateRef?: { name?: string } } | undefined)?.sandboxTemplateRef?.name;
}

function mergeMetadata(
  base: unknown,
  extra: { labels?: Record<string, string>; annotations?: Record<string, string> },
): Record<string, unknown> {
  const current = (base ?? {}) as { labels?: Record<string, string>; annotations?: Record<string, string> };
  return {
    ...current,
    labels: { ...(current.labels ?? {}), ...(extra.labels ?? {}) },
    annotations: { ...(current.annotations ?? {}), ...(extra.annotations ?? {}) },
  };
}
