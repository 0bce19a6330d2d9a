import { type CallBudget, deadlineSignal } from "@sandport/core/adapter";
import { KubernetesMalformedAnswer } from "../errors.js";
import { GrpcClient } from "./grpc.js";
import { int32, ProtoWriter, readFields } from "./protobuf.js";
import { apiError } from "./sdk.js";
import { nodeTransport, type Transport } from "./transport.js";

/** sandboxd's REST port, behind the router. */
export const SANDBOXD_REST_PORT = 8080;
/** sandboxd's gRPC port, behind the router. */
export const SANDBOXD_GRPC_PORT = 9090;
const SERVICE = "/process.v1.ProcessService";

/** One event of a `Start` stream. */
export type StartEvent =
  | { readonly kind: "init"; readonly processId: number }
  | { readonly kind: "stdout" | "stderr"; readonly data: Uint8Array }
  | { readonly kind: "exit"; readonly exitCode: number };

/** What `Start` runs: argv (no shell), its env and working directory. */
export interface ProcessConfig {
  readonly command: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/** A directory entry of sandboxd's listing. */
export interface SandboxdEntry {
  readonly name: string;
  readonly size?: number;
  readonly type: string;
  readonly modified_at?: string;
  readonly mode?: string;
}

/** POSIX signals sandboxd delivers (its `Signal` enum). */
export const SIGNALS = { SIGINT: 2, SIGKILL: 9, SIGTERM: 15 } as const;

/**
 * sandboxd of one pod, through the sandbox-router: the pod named in
 * `X-Sandbox-ID` (with its namespace), the port in `X-Sandbox-Port` (8080
 * for files, 9090 for processes). Credentials never ride in a URL; the
 * router needs none by default (its TokenReview mode is not used here).
 */
export class Sandboxd {
  readonly #routerUrl: string;
  readonly #namespace: string;
  readonly #grpc: GrpcClient;
  readonly #transport: Transport;

  constructor(routerUrl: string, namespace: string) {
    this.#routerUrl = routerUrl;
    this.#namespace = namespace;
    this.#grpc = new GrpcClient(routerUrl);
    this.#transport = nodeTransport();
  }

  /** The router headers that name a pod's port. */
  routing(pod: string, port: number): Record<string, string> {
    return { "x-sandbox-id": pod, "x-sandbox-namespace": this.#namespace, "x-sandbox-port": String(port) };
  }

  /**
   * `ProcessService/Start`: resolves once the stream ended with status 0
   * (after the `exit` event). With `pty`, on a terminal of that size
   * (`StartRequest.pty`): stdout then carries all of the terminal's output.
   */
  start(
    pod: string,
    config: ProcessConfig,
    onEvent: (event: StartEvent) => void,
    signal: AbortSignal,
    pty?: { readonly cols: number; readonly rows: number },
  ): Promise<void> {
    const message = new ProtoWriter().bytes(1, processConfig(config));
    if (pty !== undefined) message.bytes(2, new ProtoWriter().varint(1, pty.cols).varint(2, pty.rows).finish());
    return this.#grpc.call({
      path: `${SERVICE}/Start`,
      message: message.finish(),
      metadata: this.routing(pod, SANDBOXD_GRPC_PORT),
      signal,
      onMessage: (message) => onEvent(startEvent(message)),
    });
  }

  /** `ProcessService/WriteStdin`: bytes, or EOF when `data` is `undefined`. */
  writeStdin(pod: string, processId: number, data: Uint8Array | undefined, signal: AbortSignal): Promise<void> {
    const message = new ProtoWriter().varint(1, processId);
    if (data === undefined) message.present(3, new Uint8Array());
    else message.present(2, data);
    return this.#unary(pod, "WriteStdin", message.finish(), signal);
  }

  /** `ProcessService/SendSignal` to the process group. */
  sendSignal(pod: string, processId: number, signalNumber: number, signal: AbortSignal): Promise<void> {
    return this.#unary(
      pod,
      "SendSignal",
      new ProtoWriter().varint(1, processId).varint(2, signalNumber).finish(),
      signal,
    );
  }

  /** `ProcessService/ResizeTTY`. */
  resize(pod: string, processId: number, cols: number, rows: number, signal: AbortSignal): Promise<void> {
    const message = new ProtoWriter().varint(1, processId).varint(2, cols).varint(3, rows).finish();
    return this.#unary(pod, "ResizeTTY", message, signal);
  }

  /** `PUT /v1/files/{path}` (atomic, parents made), with `mode` when not 0644. */
  async writeFile(
    pod: string,
    path: string,
    content: Uint8Array,
    mode: number | undefined,
    budget: CallBudget,
  ): Promise<void> {
    const query = mode === undefined ? "" : `?mode=0${(mode & 0o777).toString(8).padStart(3, "0")}`;
    await this.#rest(pod, "PUT", path, budget, content, query);
  }

  /** `GET /v1/files/{path}` of a file: its bytes. */
  async readFile(pod: string, path: string, budget: CallBudget): Promise<Uint8Array> {
    const response = await this.#rest(pod, "GET", path, budget);
    if ((response.headers.get("content-type") ?? "").includes("application/json")) {
      throw new KubernetesMalformedAnswer(`${path} is a directory`);
    }
    return new Uint8Array(await response.arrayBuffer());
  }

  /** `GET /v1/files/{path}` of a directory: its entries. */
  async listDirectory(pod: string, path: string, budget: CallBudget): Promise<readonly SandboxdEntry[]> {
    const response = await this.#rest(pod, "GET", path, budget);
    const body = (await response.json().catch(() => undefined)) as { entries?: unknown } | undefined;
    if (!Array.isArray(body?.entries)) throw new KubernetesMalformedAnswer(`${path} is not a directory listing`);
    return body.entries as SandboxdEntry[];
  }

  /** `DELETE /v1/files/{path}?recursive=true`. */
  async remove(pod: string, path: string, budget: CallBudget): Promise<void> {
    await this.#rest(pod, "DELETE", path, budget, undefined, "?recursive=true");
  }

  /** Closes the shared gRPC connection. */
  close(): void {
    this.#grpc.close();
  }

  async #rest(
    pod: string,
    method: string,
    path: string,
    budget: CallBudget,
    body?: Uint8Array,
    query = "",
  ): Promise<Response> {
    const signal = deadlineSignal(Math.max(1, budget.remainingMs()), budget.signal);
    // sandboxd takes the path under its root, or absolute under it; each segment encoded, `/` kept.
    const encoded = path.split("/").map(encodeURIComponent).join("/").replace(/^\/+/, "");
    const response = await this.#transport(new URL(`/v1/files/${encoded}${query}`, `${this.#routerUrl}/`), {
      method,
      headers: {
        ...this.routing(pod, SANDBOXD_REST_PORT),
        ...(body === undefined ? {} : { "content-type": "application/octet-stream" }),
      },
      ...(body === undefined ? {} : { body }),
      signal,
    });
    if (!response.ok) throw apiError(response, await response.text());
    return response;
  }

  async #unary(pod: string, method: string, message: Uint8Array, signal: AbortSignal): Promise<void> {
    await this.#grpc.call({
      path: `${SERVICE}/${method}`,
      message,
      metadata: this.routing(pod, SANDBOXD_GRPC_PORT),
      signal,
      onMessage: () => {},
    });
  }
}

/** `ProcessConfig { repeated string command = 1; map<string,string> env_vars = 2; optional string cwd = 3; }`. */
function processConfig(config: ProcessConfig): Uint8Array {
  const writer = new ProtoWriter();
  for (const part of config.command) writer.present(1, new TextEncoder().encode(part));
  for (const [name, value] of Object.entries(config.env ?? {})) {
    writer.bytes(2, new ProtoWriter().bytes(1, name).bytes(2, value).finish());
  }
  if (config.cwd !== undefined) writer.bytes(3, config.cwd);
  return writer.finish();
}

/** `StartResponse { oneof event { InitEvent init = 1; bytes stdout = 2; bytes stderr = 3; ExitEvent exit = 4; } }`. */
export function startEvent(message: Uint8Array): StartEvent {
  for (const field of readFields(message)) {
    if (!("bytes" in field)) continue;
    if (field.field === 2) return { kind: "stdout", data: field.bytes };
    if (field.field === 3) return { kind: "stderr", data: field.bytes };
    if (field.field === 1 || field.field === 4) {
      const inner = readFields(field.bytes).find((one) => one.field === 1 && "varint" in one);
      const value = inner && "varint" in inner ? int32(inner.varint) : 0;
      return field.field === 1 ? { kind: "init", processId: value } : { kind: "exit", exitCode: value };
    }
  }
  // An empty oneof: the exit of a process that exited 0 is `exit {}` (field 4, zero length), caught above.
  throw new KubernetesMalformedAnswer("sandboxd sent a Start event with none of init, stdout, stderr or exit");
}
