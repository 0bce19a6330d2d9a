// Raw clients for the Kubernetes emulator's tests: the API server over fetch (and its watch stream
// read line by line), sandboxd's ProcessService through the router with @grpc/grpc-js (a real gRPC
// client over h2c), messages encoded by hand from process.proto's field numbers.
import * as grpc from "@grpc/grpc-js";
import type { KubernetesEmulator } from "./emulator.js";
import { ProtoMessage, ProtoWriter } from "./protobuf.js";

/** The API paths the tests use. */
export const EXT = "/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/default";
export const CORE_SANDBOXES = "/apis/agents.x-k8s.io/v1beta1/namespaces/default/sandboxes";
export const PODS_PATH = "/api/v1/namespaces/default/pods";

/** A Kubernetes object as the tests read it. */
// biome-ignore lint/suspicious/noExplicitAny: test-side JSON
export type Json = any;

/** One API call with the emulator's token (or another). */
export async function api(
  emulator: KubernetesEmulator,
  path: string,
  init: { method?: string; body?: unknown; token?: string | null; contentType?: string } = {},
): Promise<{ status: number; body: Json }> {
  const headers: Record<string, string> = { "content-type": init.contentType ?? "application/json" };
  if (init.token !== null) headers.authorization = `Bearer ${init.token ?? emulator.token}`;
  const response = await fetch(`${emulator.apiServerUrl}${path}`, {
    method: init.method ?? "GET",
    headers,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text) };
}

/** A watch stream: events as they arrive, and the way to stop. */
export interface Watch {
  /** The next event (waits for it); undefined once the stream ended. */
  next(): Promise<{ type: string; object: Json } | undefined>;
  /** Events until one matches, returning every event read (the match last). */
  until(match: (event: { type: string; object: Json }) => boolean): Promise<Array<{ type: string; object: Json }>>;
  close(): void;
}

/** Open `?watch=true` on a collection path (query without `watch`). */
export async function watch(emulator: KubernetesEmulator, pathWithQuery: string): Promise<Watch> {
  const abort = new AbortController();
  // A bound for failure only: a watch that never sees its event fails the test (whose after()
  // then stops the emulator) instead of hanging it.
  const bound = setTimeout(() => abort.abort(new Error("watch bound of 60 s reached")), 60_000);
  bound.unref();
  const separator = pathWithQuery.includes("?") ? "&" : "?";
  const response = await fetch(`${emulator.apiServerUrl}${pathWithQuery}${separator}watch=true`, {
    headers: { authorization: `Bearer ${emulator.token}` },
    signal: abort.signal,
  });
  if (response.status !== 200 || response.body === null) throw new Error(`watch answered ${response.status}`);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  const next = async () => {
    while (!buffered.includes("\n")) {
      const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (chunk.done) return undefined;
      buffered += decoder.decode(chunk.value, { stream: true });
    }
    const end = buffered.indexOf("\n");
    const line = buffered.slice(0, end);
    buffered = buffered.slice(end + 1);
    return JSON.parse(line) as { type: string; object: Json };
  };
  return {
    next,
    async until(match) {
      const seen: Array<{ type: string; object: Json }> = [];
      while (true) {
        const event = await next();
        if (event === undefined)
          throw new Error(`the watch ended before a match; saw ${JSON.stringify(seen.map((e) => e.type))}`);
        seen.push(event);
        if (match(event)) return seen;
      }
    },
    close: () => {
      clearTimeout(bound);
      abort.abort();
    },
  };
}

/** The Ready condition's status of an object. */
export function readyOf(object: Json): string | undefined {
  return (object?.status?.conditions ?? []).find((condition: Json) => condition.type === "Ready")?.status;
}

/** Create a claim and wait (on a watch) until it is Ready; returns the ready claim. */
export async function claimReady(emulator: KubernetesEmulator, body: Json): Promise<Json> {
  const events = await watch(emulator, `${EXT}/sandboxclaims?fieldSelector=metadata.name%3D${body.metadata.name}`);
  try {
    const created = await api(emulator, `${EXT}/sandboxclaims`, { method: "POST", body });
    if (created.status !== 201) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
    if (readyOf(created.body) === "True") return created.body;
    const seen = await events.until((event) => readyOf(event.object) === "True");
    return seen.at(-1)!.object;
  } finally {
    events.close();
  }
}

/** Routing headers for a sandbox through the router. */
export function routing(sandbox: string, port: number): Record<string, string> {
  return { "x-sandbox-id": sandbox, "x-sandbox-namespace": "default", "x-sandbox-port": String(port) };
}

/** A gRPC client on the router (h2c). */
export function processClient(emulator: KubernetesEmulator): grpc.Client {
  return new grpc.Client(new URL(emulator.routerUrl).host, grpc.credentials.createInsecure());
}

/** gRPC metadata carrying the routing headers. */
export function routingMetadata(sandbox: string, port = 9090): grpc.Metadata {
  const metadata = new grpc.Metadata();
  for (const [name, value] of Object.entries(routing(sandbox, port))) metadata.set(name, value);
  return metadata;
}

const identity = (bytes: Buffer) => bytes;

/** A unary ProcessService call; resolves the decoded response or rejects with the gRPC error. */
export function unary(
  client: grpc.Client,
  method: string,
  request: Buffer,
  metadata: grpc.Metadata,
): Promise<ProtoMessage> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      `/process.v1.ProcessService/${method}`,
      identity,
      identity,
      request,
      metadata,
      (error, response) => (error ? reject(error) : resolve(ProtoMessage.decode(response!))),
    );
  });
}

/** One StartResponse event, decoded. */
export type StartEvent =
  | { kind: "init"; processId: number }
  | { kind: "stdout" | "stderr"; data: Buffer }
  | { kind: "exit"; exitCode: number };

/** Open a Start stream; events arrive on `onEvent`, `done` settles with the call's end. */
export function startStream(
  client: grpc.Client,
  request: Buffer,
  metadata: grpc.Metadata,
  onEvent: (event: StartEvent) => void,
): { done: Promise<void>; call: grpc.ClientReadableStream<Buffer> } {
  const call = client.makeServerStreamRequest(
    "/process.v1.ProcessService/Start",
    identity,
    identity,
    request,
    metadata,
  );
  const done = new Promise<void>((resolve, reject) => {
    call.on("data", (bytes: Buffer) => {
      const message = ProtoMessage.decode(bytes);
      if (message.has(1)) onEvent({ kind: "init", processId: message.message(1)!.int32(1) });
      else if (message.has(2)) onEvent({ kind: "stdout", data: message.bytes(2)! });
      else if (message.has(3)) onEvent({ kind: "stderr", data: message.bytes(3)! });
      else if (message.has(4)) onEvent({ kind: "exit", exitCode: message.message(4)!.int32(1) });
    });
    call.on("error", reject);
    call.on("end", () => resolve());
  });
  return { done, call };
}

/** ProcessConfig { command = 1; env_vars = 2 (map entries key 1, value 2); cwd = 3 } */
export function processConfig(command: string[], env: Record<string, string> = {}, cwd?: string): ProtoWriter {
  const config = new ProtoWriter();
  for (const part of command) config.bytes(1, part);
  for (const [key, value] of Object.entries(env)) config.bytes(2, new ProtoWriter().bytes(1, key).bytes(2, value));
  if (cwd !== undefined) config.bytes(3, cwd);
  return config;
}

/** StartRequest { config = 1; pty = 2 { cols = 1; rows = 2 } } */
export function startRequest(
  command: string[],
  options: { env?: Record<string, string>; cwd?: string; pty?: { cols: number; rows: number } } = {},
): Buffer {
  const request = new ProtoWriter().bytes(1, processConfig(command, options.env, options.cwd));
  if (options.pty) request.bytes(2, new ProtoWriter().varint(1, options.pty.cols).varint(2, options.pty.rows));
  return request.finish();
}
