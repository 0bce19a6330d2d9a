/**
 * List and watch of one kind in one namespace: `labelSelector`,
 * `fieldSelector=metadata.name=<name>`, and watch streams resumed from a
 * `resourceVersion`, answered with a 410 `Expired` ERROR event when that
 * version is older than the retained history.
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";
import type { ResourceKind } from "./kinds.js";
import { apiVersionOf } from "./kinds.js";
import { parseLabelSelector } from "./label-selector.js";
import type { KubeObject, ObjectStore, StoredEvent } from "./object-store.js";
import { failureStatus, KubeApiError } from "./status.js";

type ObjectFilter = (object: KubeObject) => boolean;

/** The `labelSelector` and `fieldSelector` of a list or watch request as one predicate. */
export function selectorsOf(exchange: Exchange): ObjectFilter {
  const labels = parseLabelSelector(exchange.url.searchParams.get("labelSelector"));
  const fields = parseFieldSelector(exchange.url.searchParams.get("fieldSelector"));
  return (object) => labels(object.metadata.labels ?? {}) && fields(object);
}

function parseFieldSelector(selector: string | null): ObjectFilter {
  if (selector === null || selector.trim() === "") return () => true;
  const checks = selector.split(",").map((part): ObjectFilter => {
    const match = /^\s*(metadata\.name|metadata\.namespace)\s*(==|=|!=)\s*([^\s]*)\s*$/.exec(part);
    if (!match) throw new KubeApiError(400, "BadRequest", `field label not supported: ${part.trim()}`);
    const read = (object: KubeObject) =>
      match[1] === "metadata.name" ? object.metadata.name : object.metadata.namespace;
    return match[2] === "!=" ? (object) => read(object) !== match[3] : (object) => read(object) === match[3];
  });
  return (object) => checks.every((check) => check(object));
}

/** True for `watch=true` / `watch=1`. */
export function isWatch(exchange: Exchange): boolean {
  const value = exchange.url.searchParams.get("watch");
  return value === "true" || value === "1";
}

/** Answer a list: `{ kind: <Kind>List, metadata: { resourceVersion }, items }`. */
export function serveList(exchange: Exchange, store: ObjectStore, kind: ResourceKind, namespace: string): void {
  const filter = selectorsOf(exchange);
  const requested = exchange.url.searchParams.get("resourceVersion");
  if (exchange.url.searchParams.get("resourceVersionMatch") === "Exact" && requested !== null) {
    const version = Number(requested);
    if (!Number.isInteger(version) || version < store.compactedAt) {
      throw new KubeApiError(410, "Expired", `too old resource version: ${requested} (${store.currentVersion})`);
    }
  }
  exchange.json(200, {
    apiVersion: apiVersionOf(kind),
    kind: `${kind.kind}List`,
    metadata: { resourceVersion: store.currentVersion },
    items: store.list(kind, namespace).filter(filter),
  });
}

/**
 * Answer a watch: one JSON event per line until the client leaves, the
 * emulator stops or `timeoutSeconds` passes.
 */
export function serveWatch(
  exchange: Exchange,
  store: ObjectStore,
  kind: ResourceKind,
  namespace: string,
): Promise<void> {
  const filter = selectorsOf(exchange);
  const requested = exchange.url.searchParams.get("resourceVersion");
  const from = requested === null || requested === "" || requested === "0" ? undefined : Number(requested);
  if (from !== undefined && !Number.isInteger(from)) {
    throw new KubeApiError(400, "BadRequest", `invalid resourceVersion: ${requested}`);
  }
  const stream = exchange.stream(200, { "content-type": "application/json", "cache-control": "no-cache" });
  const send = (type: string, object: unknown) => stream.write(`${JSON.stringify({ type, object })}\n`);
  const relevant = (event: StoredEvent) =>
    event.kind.plural === kind.plural && event.object.metadata.namespace === namespace && filter(event.object);

  const backlog = from === undefined ? undefined : store.changesSince(from);
  if (backlog === "expired") {
    send(
      "ERROR",
      failureStatus(new KubeApiError(410, "Expired", `too old resource version: ${from} (${store.currentVersion})`)),
    );
    stream.end();
    return Promise.resolve();
  }
  if (backlog === undefined) {
    for (const object of store.list(kind, namespace).filter(filter)) send("ADDED", object);
  } else {
    for (const event of backlog.filter(relevant)) send(event.type, event.object);
  }
  return new Promise<void>((resolve) => {
    const unsubscribe = store.subscribe((event) => {
      if (relevant(event)) send(event.type, event.object);
    });
    const timeoutSeconds = Number(exchange.url.searchParams.get("timeoutSeconds") ?? "");
    const timer =
      Number.isFinite(timeoutSeconds) && timeoutSeconds > 0 ? setTimeout(finish, timeoutSeconds * 1000) : undefined;
    exchange.signal.addEventListener("abort", finish, { once: true });
    function finish() {
      if (timer !== undefined) clearTimeout(timer);
      unsubscribe();
      exchange.signal.removeEventListener("abort", finish);
      stream.end();
      resolve();
    }
  });
}
