/**
 * Agent37 publishes no JavaScript library: this is the adapter's own client
 * of its HTTP API, over the `fetch` the runtime was given. Two planes, one
 * key: the hosting plane (`<baseUrl>/v1/instances…`, `Authorization:
 * Bearer`) and each instance's own URL (read off the instance object, never
 * built from the id) for files, with the key in the configured header. Every
 * request carries its call's deadline and signal; nothing is retried here.
 *
 * @module
 */

import { type CallBudget, deadlineSignal, type SdkLoader } from "@sandport/core/adapter";
import type { Agent37CreateRequest, Agent37ExecReply, Agent37FileEntry, Agent37Instance } from "./sdk-types.js";

/** Which header carries the key on instance URLs. */
export type InstanceAuthHeader = "authorization" | "x-agent37-key";

/** What the client is built from: the runtime's options, nothing else. */
export interface Agent37ClientSettings {
  readonly apiKey: string;
  /** The hosting API's origin (paths start with `/v1`). */
  readonly baseUrl: string;
  readonly fetch: typeof fetch;
  readonly instanceAuth: InstanceAuthHeader;
}

/** An HTTP answer other than 2xx: its status, the API's error code when the body had one, and `Retry-After`. */
export class Agent37ApiError extends Error {
  /** Always `"Agent37ApiError"` (the error mapper's name rule). */
  override readonly name = "Agent37ApiError";

  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** `error.code` (hosting plane) or the flat `error` string (instance edge); absent for anything else. */
    readonly code: string | undefined,
    message: string,
    /** `Retry-After`, in ms, when sent. */
    readonly retryAfterMs: number | undefined,
  ) {
    super(message);
  }
}

/** A malformed 2xx answer (no `data` array, an instance without `id`): never read as "nothing". */
export class Agent37MalformedAnswer extends Error {
  /** Always `"Agent37MalformedAnswer"`. */
  override readonly name = "Agent37MalformedAnswer";
}

/** The client of one runtime. Stateless: every call takes its budget. */
export class Agent37Client {
  readonly #settings: Agent37ClientSettings;

  /** Keeps the settings; no I/O. */
  constructor(settings: Agent37ClientSettings) {
    this.#settings = settings;
  }

  /** `POST /v1/instances`: answers once the instance is running (201). */
  async createInstance(body: Agent37CreateRequest, budget: CallBudget): Promise<Agent37Instance> {
    return instance(await this.#hosting("POST", "/v1/instances", budget, body));
  }

  /** `GET /v1/instances`: every instance of the workspace, in one unpaginated answer. */
  async listInstances(budget: CallBudget): Promise<Agent37Instance[]> {
    const answer = (await this.#hosting("GET", "/v1/instances", budget)) as { data?: unknown };
    if (!Array.isArray(answer?.data))
      throw new Agent37MalformedAnswer("GET /v1/instances answered without a data array");
    return answer.data.map(instance);
  }

  /** `GET /v1/instances/{id}`, in any state. */
  async getInstance(id: string, budget: CallBudget): Promise<Agent37Instance> {
    return instance(await this.#hosting("GET", `/v1/instances/${encodeURIComponent(id)}`, budget));
  }

  /** `DELETE /v1/instances/{id}`; a repeat is 404. */
  async deleteInstance(id: string, budget: CallBudget): Promise<void> {
    await this.#hosting("DELETE", `/v1/instances/${encodeURIComponent(id)}`, budget);
  }

  /** `POST /v1/instances/{id}/stop` or `/start`. */
  async lifecycle(id: string, action: "stop" | "start", budget: CallBudget): Promise<void> {
    await this.#hosting("POST", `/v1/instances/${encodeURIComponent(id)}/${action}`, budget);
  }

  /** `POST /v1/instances/{id}/exec {command}`: one synchronous, buffered run of `sh -c command`. */
  async exec(id: string, command: string, budget: CallBudget, signal?: AbortSignal): Promise<Agent37ExecReply> {
    const answer = await this.#hosting(
      "POST",
      `/v1/instances/${encodeURIComponent(id)}/exec`,
      budget,
      { command },
      signal,
    );
    if (typeof answer !== "object" || answer === null) throw new Agent37MalformedAnswer("exec answered no object");
    return answer as Agent37ExecReply;
  }

  /** `PUT <instance URL>/v1/files/content?path=` with the raw bytes. */
  async writeFile(instanceUrl: string, path: string, content: Uint8Array, budget: CallBudget): Promise<void> {
    const response = await this.#send(
      `${instanceUrl}/v1/files/content?path=${encodeURIComponent(path)}&overwrite=true`,
      {
        method: "PUT",
        headers: { ...this.instanceHeaders(), "content-type": "application/octet-stream" },
        body: content,
      },
      budget,
    );
    await response.body?.cancel();
  }

  /** `GET <instance URL>/v1/files/content?path=`: the file's bytes. */
  async readFile(instanceUrl: string, path: string, budget: CallBudget): Promise<Uint8Array> {
    const response = await this.#send(
      `${instanceUrl}/v1/files/content?path=${encodeURIComponent(path)}`,
      { method: "GET", headers: this.instanceHeaders() },
      budget,
    );
    return new Uint8Array(await response.arrayBuffer());
  }

  /** `GET <instance URL>/v1/files?path=`: the entries of one directory. */
  async listFiles(instanceUrl: string, path: string, budget: CallBudget): Promise<Agent37FileEntry[]> {
    const response = await this.#send(
      `${instanceUrl}/v1/files?path=${encodeURIComponent(path)}`,
      { method: "GET", headers: this.instanceHeaders() },
      budget,
    );
    const answer = (await response.json().catch(() => undefined)) as { entries?: unknown } | undefined;
    if (!Array.isArray(answer?.entries)) throw new Agent37MalformedAnswer("GET /v1/files answered without entries");
    return answer.entries as Agent37FileEntry[];
  }

  /** `POST <instance URL>/v1/files/dir?path=` (mkdir) or `DELETE <instance URL>/v1/files?path=`. */
  async changeFiles(instanceUrl: string, action: "mkdir" | "delete", path: string, budget: CallBudget): Promise<void> {
    const route = action === "mkdir" ? "/v1/files/dir" : "/v1/files";
    const response = await this.#send(
      `${instanceUrl}${route}?path=${encodeURIComponent(path)}`,
      { method: action === "mkdir" ? "POST" : "DELETE", headers: this.instanceHeaders() },
      budget,
    );
    await response.body?.cancel();
  }

  /** The header that carries the key on instance URLs (never a query parameter). */
  instanceHeaders(): Record<string, string> {
    const { apiKey, instanceAuth } = this.#settings;
    return instanceAuth === "authorization" ? { authorization: `Bearer ${apiKey}` } : { "x-agent37-key": apiKey };
  }

  async #hosting(
    method: string,
    path: string,
    budget: CallBudget,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.#settings.apiKey}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const init: RequestInit = { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
    const response = await this.#send(`${this.#settings.baseUrl}${path}`, init, budget, signal);
    const text = await response.text();
    if (text === "") return {};
    try {
      return JSON.parse(text);
    } catch {
      throw new Agent37MalformedAnswer(`${method} ${path} answered ${response.status} with a body that is not JSON`);
    }
  }

  /** One request within `budget` (its deadline and signal, and `signal`); a non-2xx answer is thrown. */
  async #send(url: string, init: RequestInit, budget: CallBudget, signal?: AbortSignal): Promise<Response> {
    const deadline = deadlineSignal(Math.max(1, budget.remainingMs()), budget.signal, signal);
    const response = await this.#settings.fetch(url, { ...init, signal: deadline });
    if (response.ok) return response;
    throw await apiError(response);
  }
}

/** The loader the kit's context takes: Agent37 has no SDK to load, so it hands out the client at once. */
export function clientLoader(client: Agent37Client): SdkLoader<Agent37Client> {
  return Object.assign(async () => client, { packageNames: [] as string[], range: "none" });
}

async function apiError(response: Response): Promise<Agent37ApiError> {
  const text = await response.text().catch(() => "");
  let code: string | undefined;
  let message = text.slice(0, 300) || response.statusText;
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    if (typeof parsed.error === "string") code = parsed.error;
    else if (typeof parsed.error === "object" && parsed.error !== null) {
      const inner = parsed.error as { code?: unknown; message?: unknown };
      if (typeof inner.code === "string") code = inner.code;
      if (typeof inner.message === "string") message = inner.message;
    }
  } catch {
    // Not JSON (a proxy's HTML, an empty body): no code.
  }
  const after = response.headers.get("retry-after");
  const seconds = after === null ? Number.NaN : Number(after);
  const retryAfterMs = Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds * 1000) : undefined;
  return new Agent37ApiError(
    response.status,
    code,
    `HTTP ${response.status} ${code ?? ""}: ${message}`.trim(),
    retryAfterMs,
  );
}

function instance(value: unknown): Agent37Instance {
  const found = value as Partial<Agent37Instance> | null;
  if (typeof found?.id !== "string" || found.id === "" || typeof found.status !== "string") {
    throw new Agent37MalformedAnswer("an instance object without id or status");
  }
  return found as Agent37Instance;
}
