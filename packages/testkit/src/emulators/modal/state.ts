import type { SnapshotRef } from "@sandport/core";
import { GrpcError } from "./grpc-status.js";
import { objectId } from "./ids.js";
import type { EmulatedSandbox } from "./sandbox.js";

/** A Modal environment (a namespace for apps, secrets and sandboxes). */
export interface ModalEnvironment {
  readonly id: string;
  readonly name: string;
}

/** An app: what sandboxes are created in. */
export interface ModalApp {
  readonly id: string;
  readonly name: string;
  readonly environment: string;
}

/** A secret: environment variables by id (named, or ephemeral from `Secret.fromObject`). */
export interface ModalSecret {
  readonly id: string;
  readonly env: Readonly<Record<string, string>>;
}

/** An image: built from a definition, or a sandbox's filesystem snapshot. */
export interface ModalImage {
  readonly id: string;
  /** The build request's layers (`snapshot:<id>` for a snapshot, which no build matches). */
  readonly definition: string;
  /** A snapshot's files: the backend runtime's snapshot of the sandbox, which a create from the image launches from. */
  readonly snapshot?: SnapshotRef;
  /** Epoch ms after which a snapshot's image is gone (`ttlSeconds`); absent: never. */
  readonly expiresAt?: number;
}

/** The default environment, which an empty `environmentName` means. */
export const DEFAULT_ENVIRONMENT = "main";

/**
 * Everything the control plane knows besides running work: environments,
 * apps, images, secrets and every sandbox (running or ended) by id and task.
 */
export class ModalState {
  readonly environments = new Map<string, ModalEnvironment>();
  readonly #apps = new Map<string, ModalApp>();
  readonly #appsById = new Map<string, ModalApp>();
  /** Images by id; `definition` is the build request's layers, to deduplicate builds. */
  readonly images = new Map<string, ModalImage>();
  readonly secrets = new Map<string, ModalSecret>();
  readonly #secretsByName = new Map<string, ModalSecret>();
  readonly sandboxes = new Map<string, EmulatedSandbox>();
  readonly sandboxesByTask = new Map<string, EmulatedSandbox>();
  #lastCreatedAt = 0;

  constructor(environmentNames: readonly string[]) {
    for (const name of [DEFAULT_ENVIRONMENT, ...environmentNames]) this.createEnvironment(name);
  }

  /** The environment an `environmentName` field names (`""`: the default), else `NOT_FOUND`. */
  environment(name: unknown): ModalEnvironment {
    const wanted = typeof name === "string" && name !== "" ? name : DEFAULT_ENVIRONMENT;
    const found = this.environments.get(wanted);
    if (!found) throw new GrpcError("NOT_FOUND", `Environment '${wanted}' not found`);
    return found;
  }

  /** The environment with this name, created if it does not exist. */
  createEnvironment(name: string): ModalEnvironment {
    const existing = this.environments.get(name);
    if (existing) return existing;
    const environment = { id: objectId("en"), name };
    this.environments.set(name, environment);
    return environment;
  }

  /** An app by environment and name, creating it when asked. */
  app(environment: string, name: string, createIfMissing: boolean): ModalApp {
    const key = `${environment}/${name}`;
    const existing = this.#apps.get(key);
    if (existing) return existing;
    if (!createIfMissing) throw new GrpcError("NOT_FOUND", `App '${name}' not found in environment '${environment}'`);
    const app = { id: objectId("ap"), name, environment };
    this.#apps.set(key, app);
    this.#appsById.set(app.id, app);
    return app;
  }

  /** An image by id; `undefined` when absent, or a snapshot's past its lifetime (a hard cutoff). */
  image(id: unknown): ModalImage | undefined {
    const image = typeof id === "string" ? this.images.get(id) : undefined;
    return image !== undefined && (image.expiresAt === undefined || Date.now() < image.expiresAt) ? image : undefined;
  }

  /** An app by id, else `NOT_FOUND`. */
  appById(id: unknown): ModalApp {
    const app = typeof id === "string" ? this.#appsById.get(id) : undefined;
    if (!app) throw new GrpcError("NOT_FOUND", `App ${String(id)} not found`);
    return app;
  }

  /** A secret by environment and name, else `undefined`. */
  secretNamed(environment: string, name: string): ModalSecret | undefined {
    return this.#secretsByName.get(`${environment}/${name}`);
  }

  /** Store a secret (ephemeral, or named in an environment). */
  addSecret(env: Record<string, string>, named?: { environment: string; name: string }): ModalSecret {
    const secret = { id: objectId("st"), env: { ...env } };
    this.secrets.set(secret.id, secret);
    if (named) this.#secretsByName.set(`${named.environment}/${named.name}`, secret);
    return secret;
  }

  /** A sandbox (running or ended) by id, else `NOT_FOUND`. */
  sandbox(id: unknown): EmulatedSandbox {
    const sandbox = typeof id === "string" ? this.sandboxes.get(id) : undefined;
    if (!sandbox) throw new GrpcError("NOT_FOUND", `Sandbox ${String(id)} not found`);
    return sandbox;
  }

  /** Keep a new sandbox by id and by task id. */
  addSandbox(sandbox: EmulatedSandbox): void {
    this.sandboxes.set(sandbox.settings.id, sandbox);
    this.sandboxesByTask.set(sandbox.settings.taskId, sandbox);
  }

  /** Epoch seconds, strictly increasing across calls. */
  nextCreatedAt(): number {
    const now = Date.now() / 1000;
    this.#lastCreatedAt = now > this.#lastCreatedAt ? now : this.#lastCreatedAt + 0.000001;
    return this.#lastCreatedAt;
  }
}
