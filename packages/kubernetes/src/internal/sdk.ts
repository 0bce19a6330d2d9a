import { type CallBudget, deadlineSignal, retryAfterMs } from "@sandport/core/adapter";
import { KubernetesApiError, KubernetesMalformedAnswer } from "../errors.js";
import type { ObjectList, Pod, Sandbox, SandboxClaim } from "./sdk-types.js";
import { nodeTransport, type Transport } from "./transport.js";

/** What the API client needs of the runtime's options. */
export interface KubeApiSettings {
  readonly server: string;
  readonly token: string;
  readonly caPem?: string;
  readonly namespace: string;
}

const CLAIMS = "/apis/extensions.agents.x-k8s.io/v1beta1";
const SANDBOXES = "/apis/agents.x-k8s.io/v1beta1";

/**
 * The Kubernetes API, as far as the adapter uses it, over plain HTTP with
 * the bearer token in a header (never in a URL): claims (create, get, list
 * by label selector, delete with a propagation policy), sandboxes (get,
 * merge-patch of `operatingMode`) and pods (get). Every call is bounded by
 * the caller's budget. `@kubernetes/client-node` is not used: its 2.x needs
 * Node ≥ 22.19 and this package supports Node 20.
 */
export class KubeApi {
  readonly #settings: KubeApiSettings;
  readonly #transport: Transport;

  constructor(settings: KubeApiSettings) {
    this.#settings = settings;
    this.#transport = nodeTransport(settings.caPem);
  }

  /** The namespace every call acts in. */
  get namespace(): string {
    return this.#settings.namespace;
  }

  /** `POST …/sandboxclaims`: the created claim. */
  createClaim(claim: SandboxClaim, budget: CallBudget): Promise<SandboxClaim> {
    return this.#json("POST", this.#claims(), budget, claim);
  }

  /** `GET …/sandboxclaims/{name}`. */
  getClaim(name: string, budget: CallBudget): Promise<SandboxClaim> {
    return this.#json("GET", this.#claims(name), budget);
  }

  /** `GET …/sandboxclaims?labelSelector=`: every claim of the namespace carrying the labels. */
  async listClaims(selector: string, budget: CallBudget): Promise<readonly SandboxClaim[]> {
    const list = await this.#json<ObjectList<SandboxClaim>>(
      "GET",
      `${this.#claims()}?labelSelector=${encodeURIComponent(selector)}`,
      budget,
    );
    if (!Array.isArray(list.items)) throw new KubernetesMalformedAnswer("a claim list without items");
    return list.items;
  }

  /** `DELETE …/sandboxclaims/{name}` with `propagationPolicy` (Foreground: the claim stays until its sandbox and pod are gone). */
  deleteClaim(name: string, propagation: "Foreground" | "Background", budget: CallBudget): Promise<unknown> {
    return this.#json("DELETE", this.#claims(name), budget, {
      kind: "DeleteOptions",
      apiVersion: "v1",
      propagationPolicy: propagation,
    });
  }

  /** `GET …/sandboxes/{name}`. */
  getSandbox(name: string, budget: CallBudget): Promise<Sandbox> {
    return this.#json("GET", this.#sandboxes(name), budget);
  }

  /** Merge-patches a sandbox's `spec.operatingMode`. */
  setOperatingMode(name: string, mode: "Running" | "Suspended", budget: CallBudget): Promise<Sandbox> {
    return this.#json(
      "PATCH",
      this.#sandboxes(name),
      budget,
      { spec: { operatingMode: mode } },
      "application/merge-patch+json",
    );
  }

  /** `GET /api/v1/namespaces/{ns}/pods/{name}`. */
  getPod(name: string, budget: CallBudget): Promise<Pod> {
    return this.#json("GET", `/api/v1/namespaces/${this.namespace}/pods/${encodeURIComponent(name)}`, budget);
  }

  /** The URL of a path on the API server (for the exec WebSocket). */
  url(path: string): URL {
    return new URL(path, `${this.#settings.server}/`);
  }

  /** The header that authenticates a request to the API server. */
  authorization(): string {
    return `Bearer ${this.#settings.token}`;
  }

  /** The PEM of the API server's CA, when one was given. */
  get caPem(): string | undefined {
    return this.#settings.caPem;
  }

  /** The path of the namespace's claims (for a watch). */
  claimsPath(): string {
    return this.#claims();
  }

  /** The path of the namespace's sandboxes (for a watch). */
  sandboxesPath(): string {
    return `${SANDBOXES}/namespaces/${this.namespace}/sandboxes`;
  }

  #claims(name?: string): string {
    const base = `${CLAIMS}/namespaces/${this.namespace}/sandboxclaims`;
    return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
  }

  #sandboxes(name: string): string {
    return `${SANDBOXES}/namespaces/${this.namespace}/sandboxes/${encodeURIComponent(name)}`;
  }

  async #json<T>(
    method: string,
    path: string,
    budget: CallBudget,
    body?: unknown,
    contentType = "application/json",
  ): Promise<T> {
    const response = await this.#transport(this.url(path), {
      method,
      headers: {
        authorization: this.authorization(),
        accept: "application/json",
        ...(body === undefined ? {} : { "content-type": contentType }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: deadlineSignal(Math.max(1, budget.remainingMs()), budget.signal),
    });
    const text = await response.text();
    if (!response.ok) throw apiError(response, text);
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new KubernetesMalformedAnswer(`${method} ${path} answered ${response.status} with a body that is not JSON`);
    }
  }
}

/** The error of a failed answer: a Kubernetes `Status` (its `reason`, `message`) or sandboxd's `{code, message}`. */
export function apiError(response: Response, text: string): KubernetesApiError {
  let reason: string | undefined;
  let message = text.slice(0, 300);
  try {
    const body = JSON.parse(text) as { reason?: unknown; code?: unknown; message?: unknown; detail?: unknown };
    if (typeof body.reason === "string") reason = body.reason;
    else if (typeof body.code === "string") reason = body.code;
    if (typeof body.message === "string") message = body.message;
    else if (typeof body.detail === "string") message = body.detail;
  } catch {
    // Not JSON: the text itself says it.
  }
  return new KubernetesApiError(
    response.status,
    reason,
    `HTTP ${response.status}${reason ? ` ${reason}` : ""}: ${message}`,
    retryAfterMs(response.headers.get("retry-after") ?? undefined),
  );
}
