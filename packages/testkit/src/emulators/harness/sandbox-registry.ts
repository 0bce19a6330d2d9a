import { randomBytes } from "node:crypto";
import type { EmulatedSandboxSummary } from "./types.js";

/** A sandbox held by an emulator, with the provider-specific state `T`. */
export interface RegisteredSandbox<T> {
  readonly id: string;
  /** Provider metadata (labels). Mutable: some providers let callers change it. */
  metadata: Record<string, string>;
  /** Seeded as someone else's sandbox. */
  readonly foreign: boolean;
  /** Provider state name (`running`, `paused`, ...). */
  state: string;
  /** Creation time, epoch milliseconds. */
  readonly createdAt: number;
  readonly data: T;
}

/** The live sandboxes of one emulator, so a test can assert that nothing leaked. */
export class SandboxRegistry<T> {
  readonly #sandboxes = new Map<string, RegisteredSandbox<T>>();

  add(sandbox: RegisteredSandbox<T>): void {
    if (this.#sandboxes.has(sandbox.id)) throw new Error(`duplicate sandbox id ${sandbox.id}`);
    this.#sandboxes.set(sandbox.id, sandbox);
  }

  get(id: string): RegisteredSandbox<T> | undefined {
    return this.#sandboxes.get(id);
  }

  delete(id: string): boolean {
    return this.#sandboxes.delete(id);
  }

  all(): RegisteredSandbox<T>[] {
    return [...this.#sandboxes.values()];
  }

  summaries(): EmulatedSandboxSummary[] {
    return this.all().map((sandbox) => ({
      id: sandbox.id,
      metadata: { ...sandbox.metadata },
      foreign: sandbox.foreign,
      state: sandbox.state,
    }));
  }

  /** A fresh id of lower-case letters and digits that no live sandbox has. */
  newId(prefix = "", length = 20): string {
    for (;;) {
      const id = prefix + randomToken(length - prefix.length);
      if (!this.#sandboxes.has(id)) return id;
    }
  }
}

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/** `length` random lower-case letters and digits. */
export function randomToken(length: number): string {
  const bytes = randomBytes(length);
  let token = "";
  for (const byte of bytes) token += ALPHABET[byte % ALPHABET.length];
  return token;
}
