/**
 * The Sandbox controller of the emulated cluster: a Sandbox gets a pod (a
 * sandbox launched on the backend runtime), its `Ready` condition moves from
 * False to True when the pod runs, `operatingMode: Suspended` deletes the pod
 * (files under /workspace stay on the backend sandbox) and `Running` brings
 * a new one, deletion removes the pod and then the Sandbox.
 *
 * @module
 */

import type { SandboxRuntime } from "@sandport/core";
import { type Condition, condition, findCondition, setCondition } from "./conditions.js";
import { AGENT_SANDBOX_KEYS, PODS, SANDBOXES } from "./kinds.js";
import type { KubeObject, ObjectStore } from "./object-store.js";
import { fakePodIp, PodRuntime } from "./pod-runtime.js";
import { hostWorkspaceOf } from "./pod-workspace.js";

/** What a new Sandbox is made of. */
export interface SandboxRecipe {
  readonly namespace: string;
  readonly name?: string;
  readonly generateName?: string;
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
  /** `spec.podTemplate` (`metadata` and `spec`). */
  readonly podTemplate: Record<string, unknown>;
  readonly ownerReferences?: Array<Record<string, unknown>>;
  /** Environment for every command, beyond the pod template's. */
  readonly env?: Record<string, string>;
  readonly shutdownTime?: string;
  readonly operatingMode?: string;
}

/** Called when a Sandbox's status changed, so claims can mirror it. */
export type SandboxObserver = (sandbox: KubeObject | undefined, namespace: string, name: string) => void;

/** Creates, runs, suspends and deletes Sandboxes and their pods. */
export class SandboxController {
  readonly #pods = new Map<string, PodRuntime>();
  readonly #pending = new Set<Promise<unknown>>();
  readonly #deletions = new Map<string, Promise<void>>();
  #observer: SandboxObserver = () => {};
  #stopping = false;

  constructor(
    readonly store: ObjectStore,
    readonly runtime: SandboxRuntime,
    /** The backend's commands are host processes: each pod's are given its own `/workspace` mount. */
    readonly mountWorkspaces = false,
  ) {}

  /** Who hears of Sandbox status changes (the claim controller). */
  observe(observer: SandboxObserver): void {
    this.#observer = observer;
  }

  /** The backend side of a Sandbox's pod, while the Sandbox exists. */
  podRuntime(namespace: string, name: string): PodRuntime | undefined {
    return this.#pods.get(`${namespace}/${name}`);
  }

  /** Every Sandbox's pod runtime. */
  allPods(): Array<{ namespace: string; name: string; pod: PodRuntime }> {
    return [...this.#pods.entries()].map(([key, pod]) => {
      const [namespace, name] = key.split("/") as [string, string];
      return { namespace, name, pod };
    });
  }

  /** Store a new Sandbox (Ready=False) and start its pod in the background. Returns the stored Sandbox. */
  create(recipe: SandboxRecipe): KubeObject {
    const sandbox = this.store.create(SANDBOXES, {
      metadata: {
        namespace: recipe.namespace,
        ...(recipe.name === undefined ? {} : { name: recipe.name }),
        ...(recipe.generateName === undefined ? {} : { generateName: recipe.generateName }),
        labels: recipe.labels,
        annotations: recipe.annotations,
        ...(recipe.ownerReferences === undefined ? {} : { ownerReferences: recipe.ownerReferences }),
      },
      spec: {
        podTemplate: recipe.podTemplate,
        operatingMode: recipe.operatingMode ?? "Running",
        ...(recipe.shutdownTime === undefined ? {} : { shutdownTime: recipe.shutdownTime }),
      },
      status: {
        conditions: [condition("Ready", "False", "DependenciesNotReady", "Pod does not exist")],
      },
    });
    const name = sandbox.metadata.name;
    this.store.update(SANDBOXES, recipe.namespace, name, (object) => {
      object.metadata.annotations = { ...object.metadata.annotations, [AGENT_SANDBOX_KEYS.podName]: name };
      object.status = { ...object.status, selector: `agents.x-k8s.io/sandbox-name-hash=${name}` };
    });
    const env = { ...templateEnv(recipe.podTemplate), ...(recipe.env ?? {}) };
    const sandboxd = hasSandboxd(recipe.podTemplate);
    this.#background(this.#launch(recipe.namespace, name, env, sandboxd, recipe.operatingMode !== "Suspended"));
    return this.store.get(SANDBOXES, recipe.namespace, name);
  }

  /** `spec.operatingMode` changed (or may have): suspend or resume the pod. */
  reconcileMode(namespace: string, name: string): void {
    const sandbox = this.store.find(SANDBOXES, namespace, name);
    const pod = this.podRuntime(namespace, name);
    if (sandbox === undefined || pod === undefined || sandbox.metadata.deletionTimestamp !== undefined) return;
    const suspended = sandbox.spec?.operatingMode === "Suspended";
    if (suspended && pod.running) this.#background(this.#suspend(namespace, name, pod));
    if (!suspended && !pod.running) this.#background(this.#startPod(namespace, name, pod));
  }

  /** Delete a Sandbox: its pod goes (processes, backend sandbox), then the Sandbox object. Resolves when both are gone. */
  delete(namespace: string, name: string): Promise<void> {
    // A second delete while one runs waits for the first, so the Sandbox never goes before its pod.
    const key = `${namespace}/${name}`;
    const running = this.#deletions.get(key);
    if (running !== undefined) return running;
    const work = this.#delete(namespace, name).finally(() => this.#deletions.delete(key));
    this.#deletions.set(key, work);
    return work;
  }

  async #delete(namespace: string, name: string): Promise<void> {
    const sandbox = this.store.find(SANDBOXES, namespace, name);
    if (sandbox === undefined) return;
    if (sandbox.metadata.deletionTimestamp === undefined) {
      this.store.update(SANDBOXES, namespace, name, (object) => {
        object.metadata.deletionTimestamp = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
      });
    }
    const key = `${namespace}/${name}`;
    const pod = this.#pods.get(key);
    this.#pods.delete(key);
    this.store.remove(PODS, namespace, name);
    if (pod !== undefined) await pod.destroy().catch(() => {});
    const removed = this.store.remove(SANDBOXES, namespace, name);
    if (removed !== undefined) this.#observer(undefined, namespace, name);
  }

  /** An adopted warm Sandbox's running pod takes the claim's `additionalPodMetadata`. */
  relabelPod(
    namespace: string,
    name: string,
    extra: { labels?: Record<string, string>; annotations?: Record<string, string> },
  ): void {
    if (this.store.find(PODS, namespace, name) === undefined) return;
    this.store.update(PODS, namespace, name, (pod) => {
      pod.metadata.labels = { ...(pod.metadata.labels ?? {}), ...(extra.labels ?? {}) };
      pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), ...(extra.annotations ?? {}) };
    });
  }

  /** Wait for every background launch, suspend, resume and deletion to settle. */
  async settle(): Promise<void> {
    while (this.#pending.size > 0 || this.#deletions.size > 0) {
      await Promise.allSettled([...this.#pending, ...this.#deletions.values()]);
    }
  }

  /** Stop making pods and remove every backend sandbox. */
  async shutDown(): Promise<void> {
    this.#stopping = true;
    await this.settle();
    const pods = [...this.#pods.values()];
    this.#pods.clear();
    await Promise.all(pods.map((pod) => pod.destroy().catch(() => {})));
  }

  #background(work: Promise<unknown>): void {
    const tracked = work.catch(() => {}).finally(() => this.#pending.delete(tracked));
    this.#pending.add(tracked);
  }

  async #launch(namespace: string, name: string, env: Record<string, string>, sandboxd: boolean, start: boolean) {
    let handle: Awaited<ReturnType<SandboxRuntime["launch"]>>;
    try {
      handle = await this.runtime.launch({ network: true, ...(Object.keys(env).length > 0 ? { env } : {}) });
    } catch (error) {
      this.#setReady(namespace, name, condition("Ready", "False", "ReconcilerError", `pod failed: ${String(error)}`));
      return;
    }
    const hostWorkspace = this.mountWorkspaces ? hostWorkspaceOf(handle) : undefined;
    const pod = new PodRuntime(this.runtime, handle, env, sandboxd, fakePodIp(), hostWorkspace);
    const sandbox = this.store.find(SANDBOXES, namespace, name);
    if (this.#stopping || sandbox === undefined || sandbox.metadata.deletionTimestamp !== undefined) {
      await pod.destroy().catch(() => {});
      return;
    }
    this.#pods.set(`${namespace}/${name}`, pod);
    if (start && sandbox.spec?.operatingMode !== "Suspended") await this.#startPod(namespace, name, pod);
    else this.#markSuspended(namespace, name);
  }

  async #startPod(namespace: string, name: string, pod: PodRuntime): Promise<void> {
    const sandbox = this.store.find(SANDBOXES, namespace, name);
    if (sandbox === undefined || this.podRuntime(namespace, name) !== pod) return;
    const template = (sandbox.spec?.podTemplate ?? {}) as Record<string, unknown>;
    const templateMeta = (template.metadata ?? {}) as {
      labels?: Record<string, string>;
      annotations?: Record<string, string>;
    };
    pod.markRunning();
    this.store.remove(PODS, namespace, name);
    this.store.create(PODS, {
      metadata: {
        namespace,
        name,
        labels: { ...(templateMeta.labels ?? {}), "agents.x-k8s.io/sandbox-name-hash": name },
        annotations: { ...(templateMeta.annotations ?? {}) },
        ownerReferences: [ownerReference(sandbox, true)],
      },
      spec: (template.spec ?? {}) as Record<string, unknown>,
      status: {
        phase: "Running",
        podIP: pod.podIp,
        podIPs: [{ ip: pod.podIp }],
        conditions: [
          { type: "PodScheduled", status: "True" },
          { type: "Ready", status: "True" },
        ],
      },
    });
    this.#update(namespace, name, (status) => {
      status.conditions = setCondition(
        setCondition(status.conditions as Condition[], condition("Ready", "True", "DependenciesReady", "Pod is Ready")),
        condition("Suspended", "False", "NotSuspended", "Sandbox is running"),
      );
      status.podIPs = [pod.podIp];
    });
  }

  async #suspend(namespace: string, name: string, pod: PodRuntime): Promise<void> {
    this.#update(namespace, name, (status) => {
      status.conditions = setCondition(
        status.conditions as Condition[],
        condition("Ready", "False", "SandboxSuspended", "Sandbox is suspended"),
      );
    });
    await pod.terminate();
    this.store.remove(PODS, namespace, name);
    this.#markSuspended(namespace, name);
  }

  #markSuspended(namespace: string, name: string): void {
    this.#update(namespace, name, (status) => {
      status.conditions = setCondition(
        setCondition(
          status.conditions as Condition[],
          condition("Ready", "False", "SandboxSuspended", "Sandbox is suspended"),
        ),
        condition("Suspended", "True", "PodTerminated", "Pod has been terminated"),
      );
      delete status.podIPs;
    });
  }

  #setReady(namespace: string, name: string, ready: Condition): void {
    this.#update(namespace, name, (status) => {
      status.conditions = setCondition(status.conditions as Condition[], ready);
    });
  }

  #update(namespace: string, name: string, change: (status: Record<string, unknown>) => void): void {
    if (this.store.find(SANDBOXES, namespace, name) === undefined) return;
    const updated = this.store.update(SANDBOXES, namespace, name, (object) => {
      object.status = { ...(object.status ?? {}) };
      change(object.status);
    });
    this.#observer(updated, namespace, name);
  }
}

/** True when the Sandbox is Ready=True. */
export function isReady(sandbox: KubeObject | undefined): boolean {
  return findCondition(sandbox?.status, "Ready")?.status === "True";
}

/** An ownerReference pointing at an object. */
export function ownerReference(owner: KubeObject, blockOwnerDeletion: boolean): Record<string, unknown> {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid,
    controller: true,
    blockOwnerDeletion,
  };
}

/** True when the pod template has a container named `sandboxd`. */
export function hasSandboxd(podTemplate: Record<string, unknown>): boolean {
  const spec = (podTemplate.spec ?? {}) as { containers?: Array<{ name?: string }> };
  return (spec.containers ?? []).some((container) => container.name === "sandboxd");
}

/** The `env` of the pod template's first container, as a map. */
function templateEnv(podTemplate: Record<string, unknown>): Record<string, string> {
  const spec = (podTemplate.spec ?? {}) as { containers?: Array<{ env?: Array<{ name: string; value?: string }> }> };
  const env: Record<string, string> = {};
  for (const entry of spec.containers?.[0]?.env ?? []) env[entry.name] = entry.value ?? "";
  return env;
}
