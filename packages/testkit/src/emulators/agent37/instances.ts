/**
 * The hosting plane (`/v1/instances…`, `Authorization: Bearer`): create,
 * list, get, delete, stop, start and the synchronous exec.
 *
 * @module
 */

import { randomBytes } from "node:crypto";
import type { ExecResult } from "@sandport/core";
import type { Exchange } from "../harness/exchange.js";
import type { EmulatorServer } from "../harness/http-server.js";
import { type Agent37Instance, type Agent37State, instanceJson } from "./state.js";
import { Agent37WireError, agent37ErrorReply, answering, checkBearer, jsonBody } from "./wire.js";

const CREATE_FIELDS = new Set([
  "template",
  "resources",
  "type",
  "budget",
  "auto_sleep",
  "idle_timeout_seconds",
  "public_ports",
  "user",
  "name",
  "metadata",
  "env",
]);
const ENV_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
const ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
/** How long the emulator lets a command run when nobody waits for it any more. */
const BACKEND_RUN_MS = 3_600_000;

/** What the hosting routes need beyond the state: creating a foreign or owned instance. */
export interface InstanceFleet extends Agent37State {
  /** Launches the backend sandbox and registers the instance. */
  createInstance(input: CreateInput): Promise<Agent37Instance>;
  /** Deletes the instance and destroys its backend sandbox. */
  deleteInstance(instance: Agent37Instance): Promise<void>;
}

/** A validated create request. */
export interface CreateInput {
  readonly template: string;
  readonly name: string | null;
  readonly user: string | null;
  readonly metadata: Record<string, string>;
  readonly env: Record<string, string>;
  /** Ports to expose at their own unauthenticated URLs. */
  readonly publicPorts: readonly number[];
  readonly foreign: boolean;
}

/** A fresh instance id: 10 lowercase alphanumerics (the instance URL's DNS label). */
export function newInstanceId(): string {
  return [...randomBytes(10)].map((byte) => ID_ALPHABET[byte % ID_ALPHABET.length]).join("");
}

/** Adds the hosting-plane routes. */
export function registerInstanceRoutes(server: EmulatorServer, fleet: InstanceFleet): void {
  const route = (method: string, pattern: string, handler: (exchange: Exchange) => Promise<void> | void) =>
    server.route({
      method,
      pattern,
      errorReply: agent37ErrorReply,
      handler: (exchange) =>
        answering(exchange, () => {
          checkBearer(exchange, fleet.apiKey);
          return handler(exchange);
        }),
    });
  route("POST", "/v1/instances", async (exchange) => {
    const instance = await fleet.createInstance({ ...readCreate(jsonBody(exchange)), foreign: false });
    exchange.json(201, instanceJson(instance));
  });
  route("GET", "/v1/instances", (exchange) => {
    const user = exchange.url.searchParams.get("user");
    const data = fleet.registry
      .all()
      .filter((instance) => user === null || instance.data.user === user)
      .sort((a, b) => b.createdAt - a.createdAt)
      .map(instanceJson);
    exchange.json(200, { data });
  });
  route("GET", "/v1/instances/:id", (exchange) => exchange.json(200, instanceJson(instanceOf(fleet, exchange))));
  route("DELETE", "/v1/instances/:id", async (exchange) => {
    const instance = instanceOf(fleet, exchange);
    await fleet.deleteInstance(instance);
    exchange.json(200, { id: instance.id, deleted: true });
  });
  route("POST", "/v1/instances/:id/stop", (exchange) => {
    const instance = instanceOf(fleet, exchange);
    instance.state = "stopped";
    exchange.json(200, { id: instance.id, status: "stopping" });
  });
  route("POST", "/v1/instances/:id/start", (exchange) => {
    const instance = instanceOf(fleet, exchange);
    const was = instance.state;
    instance.state = "running";
    exchange.json(200, { id: instance.id, status: was === "running" ? "running" : "starting" });
  });
  route("POST", "/v1/instances/:id/exec", (exchange) => runExec(fleet, exchange));
}

/** The instance `:id` names; 404 `not_found`. */
function instanceOf(fleet: Agent37State, exchange: Exchange): Agent37Instance {
  const id = exchange.params.id ?? "";
  const instance = fleet.registry.get(id);
  if (!instance) throw new Agent37WireError(404, "not_found", `no instance ${id}`);
  return instance;
}

function readCreate(body: Record<string, unknown>): Omit<CreateInput, "foreign"> {
  const refuse = (message: string) => new Agent37WireError(400, "invalid_request", message);
  for (const key of Object.keys(body)) if (!CREATE_FIELDS.has(key)) throw refuse(`unknown field ${key}`);
  const text = (field: string, max: number): string | null => {
    const value = body[field];
    if (value === undefined || value === null) return null;
    if (typeof value !== "string" || value.length > max) throw refuse(`${field} must be a string of at most ${max}`);
    return value;
  };
  const template = text("template", 200) ?? "agent37-hermes";
  if (template.endsWith("@latest")) throw refuse("pin a template version, or leave the tag out");
  const name = text("name", 60);
  const user = text("user", 200);
  const metadata = stringMap(body.metadata, "metadata", refuse);
  const env = stringMap(body.env, "env", refuse);
  const entries = Object.entries(env);
  if (entries.length > 32) throw refuse("env takes at most 32 variables");
  for (const [key, value] of entries) {
    if (!ENV_NAME.test(key)) throw refuse(`env name ${key} must be letters, digits and _ starting with a letter`);
    if (value.length > 4096) throw refuse(`env ${key} is longer than 4096 characters`);
  }
  return { template, name, user, metadata, env, publicPorts: readPublicPorts(body.public_ports, refuse) };
}

function readPublicPorts(value: unknown, refuse: (m: string) => Error): number[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw refuse("public_ports must be an array of {port, prefix?}");
  return value.map((entry) => {
    const port = (entry as { port?: unknown })?.port;
    if (typeof port !== "number" || !Number.isInteger(port) || port < 1 || port > 65_535) {
      throw refuse("public_ports[].port must be a port number");
    }
    return port;
  });
}

function stringMap(value: unknown, field: string, refuse: (m: string) => Error): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw refuse(`${field} must be an object of strings`);
  for (const item of Object.values(value)) if (typeof item !== "string") throw refuse(`${field} values are strings`);
  return { ...(value as Record<string, string>) };
}

/**
 * `POST /v1/instances/{id}/exec {command}`: runs `sh -c command` on the
 * backend, answers `{exit_code, stdout, stderr, truncated}` once it ends,
 * each stream cut at the cap. Past `execCapMs` it answers 502
 * `provisioning_failed` and the command runs on, as it does when the client
 * goes away.
 */
async function runExec(fleet: Agent37State, exchange: Exchange): Promise<void> {
  const instance = instanceOf(fleet, exchange);
  const body = jsonBody(exchange);
  const keys = Object.keys(body);
  if (keys.length !== 1 || typeof body.command !== "string" || body.command === "") {
    throw new Agent37WireError(400, "invalid_request", "exec takes exactly one field, command, a non-empty string");
  }
  if (instance.state !== "running") {
    throw new Agent37WireError(400, "invalid_request", `Cannot exec on an instance that is ${instance.state}`);
  }
  const cap = fleet.outputCapBytes;
  fleet.executed.push(body.command);
  // Not bound to the request: the command outlives a client that went away.
  const run = fleet.backend.exec(instance.data.handle, {
    argv: ["sh", "-c", body.command],
    timeoutMs: BACKEND_RUN_MS,
    maxOutputBytes: 2 * cap + 2,
  });
  run.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const capped = new Promise<"cap">((resolve) => {
    timer = setTimeout(() => resolve("cap"), fleet.execCapMs);
  });
  const first = await Promise.race([run, capped]).finally(() => clearTimeout(timer));
  if (first === "cap") {
    throw new Agent37WireError(502, "provisioning_failed", `the exec call passed ${fleet.execCapMs} ms`);
  }
  exchange.json(200, execReply(first as ExecResult, cap));
}

function execReply(result: ExecResult, cap: number): Record<string, unknown> {
  const cut = (text: string) => {
    const bytes = Buffer.from(text, "utf8");
    return bytes.length <= cap ? { text, cut: false } : { text: bytes.subarray(0, cap).toString("utf8"), cut: true };
  };
  const stdout = cut(result.stdout);
  const stderr = cut(result.stderr);
  return {
    exit_code: result.exitCode,
    stdout: stdout.text,
    stderr: stderr.text,
    truncated: stdout.cut || stderr.cut || result.truncated,
  };
}
