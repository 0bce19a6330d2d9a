/**
 * `POST /v3/sandboxes` (image-based, what the SDK sends unless `runtime` is
 * given) and `POST /v2/sandboxes` (legacy `runtime`): the body's checks and
 * limits, then a sandbox with its first session.
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";
import { randomToken } from "../harness/sandbox-registry.js";
import { checkProject } from "./auth.js";
import type { CreateSandboxInput, VercelContext, VercelSandbox } from "./context.js";
import { badRequest, replyFailure } from "./errors.js";
import { readNetworkPolicy } from "./network-policy.js";
import { sandboxAndSessionJson } from "./payloads.js";
import { readInteger, readObject, readOptionalString, readStringMap } from "./request-body.js";

/** Most ports a sandbox may declare. */
export const MAX_PORTS = 15;
/** Most tags a sandbox may carry. */
export const MAX_TAGS = 5;
/** Default session lifetime: 5 minutes. */
export const DEFAULT_TIMEOUT_MS = 5 * 60 * 1000;
/** Longest session lifetime the emulator accepts: 24 hours. */
export const MAX_TIMEOUT_MS = 24 * 60 * 60 * 1000;
/** The region used when none is requested. */
export const DEFAULT_REGION = "iad1";
const MAX_VCPUS = 8;
/** Path segments after `/v2/sandboxes/` that are API collections, never sandbox names. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(["sessions", "snapshots", "drives"]);
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** Body fields whose features the emulator has no backing for: refused, never silently dropped. */
const REFUSED_FIELDS: Readonly<Record<string, string>> = {
  source: "creating from a git repository, tarball or snapshot is not emulated",
  mounts: "drives are not emulated",
  networkId: "Secure Compute networks are not emulated",
};

/** Handle a create request (`legacy` for `POST /v2/sandboxes`, which takes `runtime` instead of `image`). */
export async function createRoute(exchange: Exchange, context: VercelContext, legacy: boolean): Promise<void> {
  const body = readObject(exchange);
  if (!body) return;
  if (!checkProject(exchange, context, body.projectId)) return;
  const input = parseCreate(exchange, body, legacy);
  if (!input) return;
  if (!context.sandboxes.reserveName(input.name)) {
    badRequest(exchange, `A sandbox with the name '${input.name}' already exists for this project.`);
    return;
  }
  let created: VercelSandbox;
  try {
    created = await context.sandboxes.create(input);
  } catch (error) {
    context.sandboxes.releaseName(input.name);
    replyFailure(exchange, error, "sandbox could not be created: ");
    return;
  }
  exchange.json(200, sandboxAndSessionJson(created, false));
}

function parseCreate(
  exchange: Exchange,
  body: Record<string, unknown>,
  legacy: boolean,
): CreateSandboxInput | undefined {
  for (const [field, reason] of Object.entries(REFUSED_FIELDS)) {
    if (body[field] !== undefined && body[field] !== null) {
      badRequest(exchange, `${field}: ${reason}`);
      return undefined;
    }
  }
  const network = readNetworkPolicy(body.networkPolicy);
  if ("refused" in network) {
    badRequest(exchange, network.refused);
    return undefined;
  }
  const name = readOptionalString(exchange, body.name, "name");
  if (name === false) return undefined;
  if (name !== undefined && (!NAME_PATTERN.test(name) || RESERVED_NAMES.has(name))) {
    badRequest(exchange, `name ${JSON.stringify(name)} is not a valid sandbox name`);
    return undefined;
  }
  const image = readOptionalString(exchange, body.image, "image");
  const runtime = readOptionalString(exchange, body.runtime, "runtime");
  if (image === false || runtime === false) return undefined;
  if (image !== undefined && runtime !== undefined) {
    badRequest(exchange, "runtime and image cannot be used together");
    return undefined;
  }
  if (!legacy && runtime !== undefined) {
    badRequest(exchange, "runtime is accepted only by POST /v2/sandboxes; use image");
    return undefined;
  }
  const ports = readPorts(exchange, body.ports);
  if (!ports) return undefined;
  const timeout = readInteger(exchange, body.timeout, "timeout", {
    min: 1,
    max: MAX_TIMEOUT_MS,
    fallback: DEFAULT_TIMEOUT_MS,
  });
  if (timeout === undefined) return undefined;
  const resources = body.resources ?? {};
  if (typeof resources !== "object" || resources === null || Array.isArray(resources)) {
    badRequest(exchange, "resources must be an object");
    return undefined;
  }
  const vcpus = readInteger(exchange, (resources as Record<string, unknown>).vcpus, "resources.vcpus", {
    min: 1,
    max: MAX_VCPUS,
    fallback: 2,
  });
  if (vcpus === undefined) return undefined;
  if (vcpus !== 1 && vcpus % 2 !== 0) {
    badRequest(exchange, "resources.vcpus must be 1, or an even number");
    return undefined;
  }
  const env = readStringMap(exchange, body.env, "env");
  const tags = readStringMap(exchange, body.tags, "tags");
  if (!env || !tags) return undefined;
  if (Object.keys(tags).length > MAX_TAGS) {
    badRequest(exchange, `a sandbox can have at most ${MAX_TAGS} tags`);
    return undefined;
  }
  if (body.persistent !== undefined && body.persistent !== null && typeof body.persistent !== "boolean") {
    badRequest(exchange, "persistent must be a boolean");
    return undefined;
  }
  const region = readOptionalString(exchange, body.region, "region");
  if (region === false) return undefined;
  const failoverRegions = readRegions(exchange, body.failoverRegions, region ?? DEFAULT_REGION);
  if (failoverRegions === false) return undefined;
  return {
    name: name ?? `sbx-${randomToken(16)}`,
    persistent: body.persistent !== false,
    region: region ?? DEFAULT_REGION,
    failoverRegions,
    vcpus,
    timeout,
    networkPolicy: network.policy,
    ports,
    env,
    tags,
    image,
    runtime,
    foreign: false,
  };
}

function readPorts(exchange: Exchange, value: unknown): number[] | undefined {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    badRequest(exchange, "ports must be an array of port numbers");
    return undefined;
  }
  if (value.length > MAX_PORTS) {
    badRequest(exchange, `a sandbox can expose at most ${MAX_PORTS} ports`);
    return undefined;
  }
  for (const port of value) {
    if (typeof port !== "number" || !Number.isInteger(port) || port < 1024 || port > 65535) {
      badRequest(exchange, `invalid port ${JSON.stringify(port)}: ports are integers from 1024 to 65535`);
      return undefined;
    }
  }
  if (new Set(value).size !== value.length) {
    badRequest(exchange, "ports must not repeat");
    return undefined;
  }
  return value as number[];
}

function readRegions(exchange: Exchange, value: unknown, region: string): string[] | undefined | false {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== "string")) {
    badRequest(exchange, "failoverRegions must be an array of region names");
    return false;
  }
  if (value.includes(region)) {
    badRequest(exchange, `failoverRegions must not include the sandbox region: ${region}`);
    return false;
  }
  return value as string[];
}
