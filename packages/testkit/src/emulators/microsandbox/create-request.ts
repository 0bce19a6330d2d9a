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
  const vcpus = optionalCount(resources.vcpus, "resources.vcpus") ?? 1;
  const memoryMib = optionalCount(resources.memory_mib, "resources.memory_mib") ?? 512;

  const runtime = objectOf(request.runtime, "runtime");
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
