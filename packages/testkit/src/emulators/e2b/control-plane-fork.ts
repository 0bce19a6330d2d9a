/**
 * E2B's fork route, `POST /sandboxes/{id}/fork` (body `SandboxForkRequest`:
 * `count`, `timeout`): the running source is copied into `count` new
 * sandboxes and keeps running, its id and end of life untouched. Each fork is
 * a real copy of the source's files (the backend's own `fork`), with the
 * source's metadata, environment, network and lifecycle, and a lifetime of
 * `timeout` seconds; no process of the source runs in it (E2B's fork holds the
 * memory too). Rules and sources: README.md, "Contract (fork)".
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";
import type { E2BContext, E2BSandbox } from "./context.js";
import { notFound, readObject, readTimeout } from "./control-plane.js";
import { badRequest, sandboxJson, validationError } from "./control-plane-json.js";
import { messageOf } from "./errors.js";

/** Most forks one request may ask for (`maxForkCount`). */
const MAX_FORK_COUNT = 100;
/** The emulated Pro team's concurrent sandboxes (E2B's pricing: Pro 100, Hobby 20). */
const SANDBOX_CONCURRENCY = 100;
/** Lifetime of a fork when the request names none (`SandboxForkRequest.timeout` `@default 15`). */
const DEFAULT_FORK_TIMEOUT_SECONDS = 15;

/**
 * `POST /sandboxes/{id}/fork`. The body is optional; it is validated (schema,
 * then timeout, then count) before the source is looked up, as E2B's
 * validator and handler do. Answers 201 with one `SandboxForkResult` per
 * fork, `{ sandbox }` or `{ error }`, each fork made or failed on its own.
 */
export async function forkSandbox(exchange: Exchange, context: E2BContext): Promise<void> {
  const body = readObject(exchange);
  if (!body) return;
  const count = readCount(exchange, body);
  if (count === undefined) return;
  const timeoutSeconds = readTimeout(exchange, body, DEFAULT_FORK_TIMEOUT_SECONDS, "positive");
  if (timeoutSeconds === undefined) return;
  if (count < 1) {
    badRequest(exchange, "Count must be at least 1");
    return;
  }
  if (count > MAX_FORK_COUNT) {
    badRequest(exchange, `Count cannot be greater than ${MAX_FORK_COUNT}`);
    return;
  }
  // The source keeps its slot, so more forks than the concurrency limit can never all run.
  if (count >= SANDBOX_CONCURRENCY) {
    badRequest(
      exchange,
      `Count must be lower than the maximum number of concurrent sandboxes (${SANDBOX_CONCURRENCY})`,
    );
    return;
  }
  const id = exchange.params.id ?? "";
  const source = context.registry.get(id);
  if (!source) {
    notFound(exchange, id);
    return;
  }
  if (source.state === "paused") {
    exchange.json(409, { code: 409, message: `Sandbox '${id}' is paused and cannot be forked; resume it first` });
    return;
  }
  const results = await Promise.all(Array.from({ length: count }, () => forkOne(context, source, timeoutSeconds)));
  exchange.json(201, results);
}

/** `count` as the schema has it (`int32`, default 1), or `undefined` after answering 400. */
function readCount(exchange: Exchange, body: Record<string, unknown>): number | undefined {
  const value = body.count ?? 1;
  if (typeof value !== "number" || !Number.isInteger(value) || value > 2_147_483_647 || value < -2_147_483_648) {
    validationError(
      exchange,
      'request body has an error: doesn\'t match schema: Error at "/count": value must be an int32',
    );
    return undefined;
  }
  return value;
}

/** One fork's `SandboxForkResult`: the new sandbox, or the error that kept it from starting. */
async function forkOne(context: E2BContext, source: E2BSandbox, timeoutSeconds: number) {
  try {
    const fork = await context.forkSandbox(source, timeoutSeconds);
    return { sandbox: sandboxJson(fork, context) };
  } catch (error) {
    return { error: { code: 500, message: `Error creating forked sandbox: ${messageOf(error)}` } };
  }
}
