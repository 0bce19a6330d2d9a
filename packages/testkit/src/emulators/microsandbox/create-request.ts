/**
 * The body of `POST /v1/sandboxes` (the SDK's `CloudSandboxSpec`, snake_case),
 * validated into a {@link CreateSandboxInput}. Settings the emulator cannot
 * honour on its backend (mounts, patches, rlimits, an init hand-off, network
 * policies other than deny-all, secrets, registry credentials) are refused
 * with 400 and logged as unknown routes rather than accepted and ignored.
 *
 * @module
 */

import type { CreateSandboxInput, MicrosandboxSpec } from "./context.js";

/** A create body the emulator refuses: 400 with this code and message. */
export class CreateRefusedError extends Error {
  readonly code: "invalid_request" | "invalid_sandbox_config";
  /** Set when the refusal is for a setting that is not emulated (logged as `POST /v1/sandboxes <field>`). */
  readonly notEmulated: string | undefined;

  constructor(code: "invalid_request" | "invalid_sandbox_config", message: string, notEmulated?: string) {
    super(message);
    this.name = "CreateRefusedError";
    this.code = code;
    this.notEmulated = notEmulated;
  }
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_NAME_BYTES = 128;
/** `CloudSandboxResources.vcpus` is a `u8`. */
const MAX_VCPUS = 255;
/** `CloudSandboxResources.memory_mib` is a `u32`. */
const MAX_MEMORY_MIB = 2 ** 32 - 1;
/** The fields of `CloudSandboxRuntimeOptions`, which denies unknown fields. */
const RUNTIME_FIELDS: ReadonlySet<string> = new Set([
  "workdir",
  "shell",
  "scripts",
  "entrypoint",
  "cmd",
  "user",
  "log_level",
]);
/** The fields of `CloudNetworkSpec`, which denies unknown fields (`strict` too: the 0.6.18 SDK sends it). */
const NETWORK_FIELDS: ReadonlySet<string> = new Set(["enabled", "strict", "policy", "secrets", "max_connections"]);

type Json = Record<string, unknown>;

function objectOf(value: unknown, field: string): Json {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw invalid(`${field} must be an object`);
  return value as Json;
}

function invalid(message: string): CreateRefusedError {
  return new CreateRefusedError("invalid_request", message);
}

function notEmulated(field: string): CreateRefusedError {
  return new CreateRefusedError("invalid_sandbox_config", `${field} is not emulated`, field);
}

function optionalCount(value: unknown, field: string): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw invalid(`${field} must be a non-negative integer`);
  }
  return value;
}

/** A count in `[1, max]` (a missing one is `null`), refused like the types crate's integer fields. */
function positiveCount(value: unknown, field: string, max: number): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1 || value > max) {
    throw invalid(`${field} must be an integer from 1 to ${max}`);
  }
  return value;
}

/** Refuse a field a `deny_unknown_fields` struct of the types crate does not have. */
function denyUnknownFields(value: Json, field: string, known: ReadonlySet<string>): void {
  const unknown = Object.keys(value).find((key) => !known.has(key));
  if (unknown !== undefined) throw invalid(`${field}: unknown field \`${unknown}\``);
}

function nonEmptyArray(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0;
}

/** Validate a create body. Throws {@link CreateRefusedError}. */
export function readCreateRequest(body: Buffer): Omit<CreateSandboxInput, "foreign"> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    throw invalid("request body is not valid JSON");
  }
  const request = objectOf(parsed, "body");
  const name = request.name;
  if (typeof name !== "string" || name === "" || Buffer.byteLength(name) > MAX_NAME_BYTES) {
    throw invalid(`name must be 1 to ${MAX_NAME_BYTES} bytes`);
  }

  const image = objectOf(request.image, "image");
  if (image.type !== "oci" || typeof image.reference !== "string" || image.reference === "") {
    throw new CreateRefusedError("invalid_sandbox_config", "image must be an OCI reference");
  }

  const resources = objectOf(request.resources, "resources");
  const vcpus = positiveCount(resources.vcpus, "resources.vcpus", MAX_VCPUS) ?? 1;
  const memoryMib = positiveCount(resources.memory_mib, "resources.memory_mib", MAX_MEMORY_MIB) ?? 512;

  const runtime = objectOf(request.runtime, "runtime");
  denyUnknownFields(runtime, "runtime", RUNTIME_FIELDS);
  const workdir = runtime.workdir ?? null;
  if (workdir !== null && (typeof workdir !== "string" || !workdir.startsWith("/"))) {
    throw new CreateRefusedError("invalid_sandbox_config", "runtime.workdir must be an absolute path");
  }
  if (runtime.user !== undefined && runtime.user !== null) throw notEmulated("runtime.user");

  const env: { key: string; value: string }[] = [];
  if (request.env !== undefined && !Array.isArray(request.env)) throw invalid("env must be an array");
  for (const entry of (request.env as unknown[] | undefined) ?? []) {
    const { key, value } = objectOf(entry, "env[]");
    if (typeof key !== "string" || !ENV_NAME.test(key) || typeof value !== "string") {
      throw invalid(`env entries need a key matching ${ENV_NAME} and a string value`);
    }
    env.push({ key, value });
  }

  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries(objectOf(request.labels, "labels"))) {
    if (typeof value !== "string") throw invalid(`labels.${key} must be a string`);
    labels[key] = value;
  }

  for (const field of ["rlimits", "mounts", "patches"] as const) {
    if (nonEmptyArray(request[field])) throw notEmulated(field);
  }
  if (request.init !== undefined && request.init !== null) throw notEmulated("init");
  if (request.registry !== undefined) throw notEmulated("registry");

  const network = objectOf(request.network, "network");
  denyUnknownFields(network, "network", NETWORK_FIELDS);
  const networkEnabled = network.enabled !== false;
  if (networkEnabled && network.policy !== undefined && network.policy !== null) throw notEmulated("network.policy");
  if (nonEmptyArray(objectOf(network.secrets, "network.secrets").entries)) throw notEmulated("network.secrets");

  const lifecycle = objectOf(request.lifecycle, "lifecycle");
  const spec: MicrosandboxSpec = {
    image: image.reference,
    vcpus,
    memoryMib,
    env,
    workdir: workdir as string | null,
    runtime,
    networkEnabled,
    ephemeral: lifecycle.ephemeral === true,
    maxDurationSecs: optionalCount(lifecycle.max_duration_secs, "lifecycle.max_duration_secs"),
    idleTimeoutSecs: optionalCount(lifecycle.idle_timeout_secs, "lifecycle.idle_timeout_secs"),
  };
  return { name, labels, spec };
}
