/**
 * The emulated API server's storage: objects by kind, namespace and name,
 * one increasing `resourceVersion` for every change, and the history of
 * changes that watches replay from a resourceVersion.
 *
 * @module
 */

import { randomUUID } from "node:crypto";
import { apiVersionOf, type ResourceKind } from "./kinds.js";
import { KubeApiError, notFound } from "./status.js";

/** Object metadata, as far as the emulator reads or writes it. */
export interface ObjectMeta {
  name: string;
  namespace: string;
  uid: string;
  resourceVersion: string;
  creationTimestamp: string;
  generateName?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  deletionTimestamp?: string;
  finalizers?: string[];
  ownerReferences?: Array<Record<string, unknown>>;
}

/** A stored object: `apiVersion`, `kind`, `metadata`, and whatever else it carries. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  [field: string]: unknown;
}

/** Watch event types. */
export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED";

/** One change, as a watch sends it. */
export interface StoredEvent {
  readonly resourceVersion: number;
  readonly type: WatchEventType;
  readonly kind: ResourceKind;
  readonly object: KubeObject;
}

/** What a new object carries before the store stamps it. */
export interface NewObject {
  metadata: Partial<ObjectMeta> & { namespace: string };
  [field: string]: unknown;
}

const NAME_SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/** A random `generateName` suffix: five characters of the alphabet the API server uses. */
export function randomNameSuffix(): string {
  let suffix = "";
  for (let index = 0; index < 5; index++) {
    suffix += NAME_SUFFIX_ALPHABET[Math.floor(Math.random() * NAME_SUFFIX_ALPHABET.length)];
  }
  return suffix;
}

/** The objects, their versions and their change history. */
export class ObjectStore {
  #version = 0;
  #compactedAt = 0;
  readonly #objects = new Map<string, KubeObject>();
  readonly #history: StoredEvent[] = [];
  readonly #listeners = new Set<(event: StoredEvent) => void>();

  /** The current resourceVersion, as a string. */
  get currentVersion(): string {
    return String(this.#version);
  }

  /** The oldest resourceVersion a watch may still resume from. */
  get compactedAt(): number {
    return this.#compactedAt;
  }

  /** Forget the history: every resourceVersion handed out so far becomes too old to watch from. */
  compact(): void {
    this.#compactedAt = this.#version;
    this.#history.length = 0;
  }

  /** A copy of one object, or undefined. */
  find(kind: ResourceKind, namespace: string, name: string): KubeObject | undefined {
    const object = this.#objects.get(keyOf(kind, namespace, name));
    return object === undefined ? undefined : structuredClone(object);
  }

  /** A copy of one object, or 404. */
  get(kind: ResourceKind, namespace: string, name: string): KubeObject {
    const object = this.find(kind, namespace, name);
    if (object === undefined) throw notFound(kind, name);
    return object;
  }

  /** Copies of every object of a kind in a namespace (every namespace when omitted), by name. */
  list(kind: ResourceKind, namespace?: string): KubeObject[] {
    const prefix = namespace === undefined ? `${kind.plural}/` : `${kind.plural}/${namespace}/`;
    return [...this.#objects.entries()]
      .filter(([key]) => key.startsWith(prefix))
      .map(([, object]) => structuredClone(object))
      .sort((left, right) => left.metadata.name.localeCompare(right.metadata.name));
  }

  /** Store a new object (name or generateName), 409 AlreadyExists when the name is taken. Returns a copy. */
  create(kind: ResourceKind, input: NewObject): KubeObject {
    const metadata = input.metadata;
    let name = metadata.name;
    if (!name && metadata.generateName) {
      do name = `${metadata.generateName}${randomNameSuffix()}`;
      while (this.#objects.has(keyOf(kind, metadata.namespace, name)));
    }
    if (!name) {
      throw new KubeApiError(422, "Invalid", `${kind.kind}.${kind.group} is invalid: metadata.name: Required value`, {
        group: kind.group,
        kind: kind.kind,
      });
    }
    const key = keyOf(kind, metadata.namespace, name);
    if (this.#objects.has(key)) {
      const qualified = kind.group === "" ? kind.plural : `${kind.plural}.${kind.group}`;
      throw new KubeApiError(409, "AlreadyExists", `${qualified} "${name}" already exists`, {
        name,
        group: kind.group,
        kind: kind.plural,
      });
    }
    const version = this.#bump();
    const object = structuredClone({
      ...input,
      apiVersion: apiVersionOf(kind),
      kind: kind.kind,
      metadata: {
        ...metadata,
        name,
        uid: randomUUID(),
        resourceVersion: String(version),
        creationTimestamp: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
      },
    }) as KubeObject;
    this.#objects.set(key, object);
    this.#record(version, "ADDED", kind, object);
    return structuredClone(object);
  }

  /**
   * Change one object in place. `expectedVersion`, when given and not the
   * current one, is a 409 Conflict (optimistic concurrency). Returns a copy.
   */
  update(
    kind: ResourceKind,
    namespace: string,
    name: string,
    change: (object: KubeObject) => void,
    expectedVersion?: string,
  ): KubeObject {
    const key = keyOf(kind, namespace, name);
    const current = this.#objects.get(key);
    if (current === undefined) throw notFound(kind, name);
    if (expectedVersion !== undefined && expectedVersion !== current.metadata.resourceVersion) {
      const qualified = kind.group === "" ? kind.plural : `${kind.plural}.${kind.group}`;
      throw new KubeApiError(
        409,
        "Conflict",
        `Operation cannot be fulfilled on ${qualified} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
        { name, group: kind.group, kind: kind.plural },
      );
    }
    const next = structuredClone(current);
    change(next);
    // Identity is not the caller's to change.
    next.metadata.name = current.metadata.name;
    next.metadata.namespace = current.metadata.namespace;
    next.metadata.uid = current.metadata.uid;
    next.metadata.creationTimestamp = current.metadata.creationTimestamp;
    next.apiVersion = current.apiVersion;
    next.kind = current.kind;
    const version = this.#bump();
    next.metadata.resourceVersion = String(version);
    this.#objects.set(key, next);
    this.#record(version, "MODIFIED", kind, next);
    return structuredClone(next);
  }

  /** Remove one object (a DELETED event carrying its last state). Returns the removed copy, or undefined. */
  remove(kind: ResourceKind, namespace: string, name: string): KubeObject | undefined {
    const key = keyOf(kind, namespace, name);
    const current = this.#objects.get(key);
    if (current === undefined) return undefined;
    this.#objects.delete(key);
    const version = this.#bump();
    const gone = structuredClone(current);
    gone.metadata.resourceVersion = String(version);
    this.#record(version, "DELETED", kind, gone);
    return structuredClone(gone);
  }

  /**
   * Changes after `resourceVersion`, oldest first, or `"expired"` when that
   * version is older than the retained history (a watch answers 410 Gone).
   */
  changesSince(resourceVersion: number): StoredEvent[] | "expired" {
    if (resourceVersion < this.#compactedAt) return "expired";
    return this.#history.filter((event) => event.resourceVersion > resourceVersion);
  }

  /** Hear every change from now on. Returns the way to stop listening. */
  subscribe(listener: (event: StoredEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #bump(): number {
    this.#version += 1;
    return this.#version;
  }

  #record(version: number, type: WatchEventType, kind: ResourceKind, object: KubeObject): void {
    const event: StoredEvent = { resourceVersion: version, type, kind, object: structuredClone(object) };
    this.#history.push(event);
    for (const listener of [...this.#listeners]) listener(event);
  }
}

function keyOf(kind: ResourceKind, namespace: string, name: string): string {
  return `${kind.plural}/${namespace}/${name}`;
}
