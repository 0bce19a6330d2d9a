import { type OpOptions, SandportError } from "@sandport/core";
import {
  AdapterContext,
  type CallBudget,
  type ErrorSite,
  type OperationCall,
  RecentMap,
  type SdkLoader,
} from "@sandport/core/adapter";
import type { ProcessPlane } from "./data-plane.js";
import { isNotFound, mapKubernetesError } from "./errors.js";
import { claimNameOf, PROVIDER, validClaimName } from "./handle.js";
import { Sandboxd } from "./internal/sandboxd.js";
import { KubeApi } from "./internal/sdk.js";
import { POD_NAME_ANNOTATION, SANDBOX_NAME_ANNOTATION, type SandboxClaim } from "./internal/sdk-types.js";
import { decodeLabels } from "./labels.js";
import type { ResolvedOptions } from "./options.js";
import { podExecPlane } from "./pod-exec-plane.js";
import { sandboxdPlane } from "./sandboxd-plane.js";

/**
 * Per-runtime state shared by the operations: the kit's `AdapterContext`
 * (call frame, ownership, known claims, background cleanup) with the
 * Kubernetes primitives: one `GET` of a claim (`describe`), the labels its
 * annotation holds (checked against its digest labels), and the pod each
 * claim's sandbox runs in. Not exported from the package.
 */
export class KubernetesContext extends AdapterContext<ResolvedOptions, KubeApi, SandboxClaim, string> {
  /** The API server client. */
  readonly api: KubeApi;
  /** sandboxd through the router (`undefined` without `routerUrl`). */
  readonly sandboxd: Sandboxd | undefined;
  /** The pod of each claim, once read (a claim's sandbox and pod keep their names while it lives). */
  readonly #pods = new RecentMap<string, string>();
  /** The container commands go to in each pod, from its Sandbox's pod template (pod exec then needs no read of the pod). */
  readonly #containers = new RecentMap<string, string>();
  #plane: ProcessPlane | undefined;

  constructor(options: ResolvedOptions, onBackgroundError?: (error: SandportError) => void) {
    const api = new KubeApi({ ...options.cluster, namespace: options.namespace });
    const loader: SdkLoader<KubeApi> = Object.assign(async () => api, { packageNames: [] as string[], range: "none" });
    super({
      provider: PROVIDER,
      options,
      sdk: loader,
      mapError: mapKubernetesError,
      sandboxIdOf: claimNameOf,
      onBackgroundError,
    });
    this.api = api;
    this.sandboxd = options.routerUrl === undefined ? undefined : new Sandboxd(options.routerUrl, options.namespace);
  }

  /** A claim, or `undefined` when the namespace has no claim of this name. */
  async describe(claimName: string, _operation: string, budget: CallBudget): Promise<SandboxClaim | undefined> {
    validClaimName(claimName);
    try {
      return await this.api.getClaim(claimName, budget);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** The labels the claim carries (reserved ones included), as its annotation and digest labels agree. */
  labelsOf(claim: SandboxClaim): Readonly<Record<string, string>> | undefined {
    return decodeLabels(claim.metadata.labels, claim.metadata.annotations);
  }

  /** A claim's "instance" is its pod's name: commands and files go to the pod. */
  override connect(claimName: string, operation: string, budget: CallBudget): Promise<string> {
    return this.podOf(claimName, operation, budget);
  }

  /** The runtime's data plane for processes: sandboxd through the router, or pod exec. */
  plane(): ProcessPlane {
    this.#plane ??=
      this.options.dataPlane === "sandboxd"
        ? sandboxdPlane(this.requireSandboxd("exec"), () => this.options.timeouts.lookupMs)
        : podExecPlane(
            this.api,
            this.options.container,
            () => this.options.timeouts.lookupMs,
            (pod) => this.#containers.get(pod),
          );
    return this.#plane;
  }

  /** Keeps the pod name of a claim whose sandbox is known. */
  notePod(claimName: string, pod: string): void {
    this.#pods.set(claimName, pod);
  }

  /** Forgets a claim's pod (the claim was deleted). */
  dropPod(claimName: string): void {
    this.#pods.delete(claimName);
  }

  /**
   * The pod a claim's sandbox runs in: the sandbox the claim names
   * (`status.sandbox.name`, else its `agents.x-k8s.io/sandbox-name`
   * annotation), and the pod that sandbox names (its
   * `agents.x-k8s.io/pod-name` annotation, else its own name). A claim
   * that names no sandbox yet is `PROVIDER_UNAVAILABLE` (retryable).
   * `claim`: the claim as the caller has just read it (no second read). The
   * Sandbox's pod template also names the container pod exec goes to.
   */
  async podOf(claimName: string, operation: string, budget: CallBudget, claim?: SandboxClaim): Promise<string> {
    const known = this.#pods.get(claimName);
    if (known !== undefined) return known;
    claim ??= await this.api.getClaim(claimName, budget).catch((error: unknown) => {
      throw this.mapError(error, { operation, sandboxId: claimName });
    });
    const sandbox = sandboxNameOf(claim);
    if (sandbox === undefined) {
      throw new SandportError({
        code: "PROVIDER_UNAVAILABLE",
        provider: PROVIDER,
        retryable: true,
        message: `kubernetes ${operation}: claim ${claimName} has no sandbox yet`,
        details: { operation, sandboxId: claimName },
      });
    }
    const object = await this.api.getSandbox(sandbox, budget).catch((error: unknown) => {
      throw this.mapError(error, { operation, sandboxId: claimName });
    });
    const pod = object.metadata.annotations?.[POD_NAME_ANNOTATION] ?? sandbox;
    this.#pods.set(claimName, pod);
    const containers = (object.spec?.podTemplate?.spec?.containers ?? []).map((one) => one.name);
    const container = containers.find((name) => name !== "sandboxd");
    if (container !== undefined) this.#containers.set(pod, container);
    return pod;
  }

  /** sandboxd, or `UNSUPPORTED` when the runtime has no router. */
  requireSandboxd(operation: string): Sandboxd {
    if (this.sandboxd) return this.sandboxd;
    throw new SandportError({
      code: "UNSUPPORTED",
      provider: PROVIDER,
      retryable: false,
      message: `kubernetes ${operation} needs routerUrl (the sandbox-router in front of the pods)`,
      details: { operation },
    });
  }

  /** {@link onHandle} for a claim proven ours first (`FOREIGN_SANDBOX`, `NOT_FOUND`; one lookup unless known). */
  onOwned<T>(
    handle: unknown,
    op: OpOptions | undefined,
    site: string | Omit<ErrorSite, "sandboxId">,
    defaultTimeoutMs: number,
    task: (claimName: string, call: OperationCall) => Promise<T>,
  ): Promise<T> {
    const operation = typeof site === "string" ? site : site.operation;
    return this.onHandle(handle, op, site, defaultTimeoutMs, async (claimName, call) => {
      await this.assertOwned(claimName, operation, call);
      return task(claimName, call);
    });
  }
}

/** The sandbox a claim adopted or made, when it names one. */
export function sandboxNameOf(claim: SandboxClaim): string | undefined {
  const name = claim.status?.sandbox?.name ?? claim.metadata.annotations?.[SANDBOX_NAME_ANNOTATION];
  return name === undefined || name === "" ? undefined : name;
}
