import { invalidRequest } from "../errors/factories.js";
import { AdapterContext, type CallBudget } from "./adapter-context.js";
import { createErrorMapper } from "./error-mapper.js";
import type { SdkLoader } from "./sdk-loader.js";

// A fake provider for the recipes' tests (not exported from the package).

const noSdk: SdkLoader<object> = Object.assign(async () => ({}), { packageNames: [], range: "*" });

/** What a fake provider holds: sandbox id → its labels. */
export type FakeInfo = { readonly id: string; readonly labels: Record<string, string> };

/** The fake provider's options: the owner, and what the file, lookup and exec recipes read. */
export interface FakeOptions {
  readonly owner: string;
  readonly workspaceRoot: string;
  readonly timeouts: { readonly lookupMs: number; readonly fileMs: number; readonly execGraceMs: number };
}

/** A context over an in-memory provider, counting its requests. */
export class FakeContext extends AdapterContext<FakeOptions, object, FakeInfo, { id: string }> {
  readonly sandboxes = new Map<string, FakeInfo>();
  describes = 0;
  connects = 0;
  /** Makes the next connects wait for this promise (to hold them concurrent). */
  connectGate: Promise<void> = Promise.resolve();
  failConnect = false;
  /** Instances `release` was given. */
  readonly released: { id: string }[] = [];

  constructor() {
    super({
      provider: "fake",
      options: {
        owner: "me",
        workspaceRoot: "/work",
        timeouts: { lookupMs: 1_000, fileMs: 1_000, execGraceMs: 1_000 },
      },
      sdk: noSdk,
      mapError: createErrorMapper({ provider: "fake" }),
      sandboxIdOf: (handle, operation) => {
        const id = (handle as { id?: unknown } | null)?.id;
        if (typeof id !== "string") throw invalidRequest(`${operation} needs a handle`, {}, "fake");
        return id;
      },
    });
  }

  async describe(sandboxId: string): Promise<FakeInfo | undefined> {
    this.describes++;
    return this.sandboxes.get(sandboxId);
  }

  labelsOf(info: FakeInfo): Record<string, string> {
    return info.labels;
  }

  override async connect(sandboxId: string, _operation: string, _budget: CallBudget): Promise<{ id: string }> {
    this.connects++;
    await this.connectGate;
    if (this.failConnect) throw new Error("connect failed");
    return { id: sandboxId };
  }

  protected override release(instance: { id: string }): void {
    this.released.push(instance);
  }

  /** Adds a sandbox owned by `owner`. */
  add(id: string, owner = "me", labels: Record<string, string> = {}): void {
    this.sandboxes.set(id, { id, labels: { "sandport.owner": owner, ...labels } });
  }
}
