import type { SandportError } from "@sandport/core";
import { AdapterContext, absentAs, type CallBudget, metadataCodec, whenAbsent } from "@sandport/core/adapter";
import { isNotFound, mapE2BError } from "./errors.js";
import { PROVIDER, sandboxIdOf, validSandboxId } from "./handle.js";
import { createE2BSdkLoader, type E2BSdkSource } from "./internal/sdk.js";
import type { E2BConnectionFields, E2BSandbox, E2BSandboxInfo, E2BSdkModule } from "./internal/sdk-types.js";
import type { ResolvedOptions } from "./options.js";

/** Port of envd inside every sandbox: E2B's own, never a caller's server. */
export const ENVD_PORT = 49983;

/**
 * Per-runtime state shared by the operations: the kit's `AdapterContext`
 * (call frame, ownership, known sandboxes, connect cache, background cleanup)
 * with E2B's vendor primitives: one `GET /sandboxes/{id}` (`describe`), the
 * metadata codec (`labelsOf`), `Sandbox.connect` (`connect`), and the
 * connection fields every SDK call carries. Not exported from the package.
 */
export class E2BContext extends AdapterContext<ResolvedOptions, E2BSdkModule, E2BSandboxInfo, E2BSandbox> {
  constructor(options: ResolvedOptions, sdk?: E2BSdkSource, onBackgroundError?: (error: SandportError) => void) {
    super({
      provider: PROVIDER,
      options,
      sdk: createE2BSdkLoader(sdk),
      mapError: mapE2BError,
      sandboxIdOf,
      onBackgroundError,
    });
  }

  /** One `GET /sandboxes/{id}`; `undefined` when E2B reports not-found. */
  async describe(sandboxId: string, _operation: string, budget: CallBudget): Promise<E2BSandboxInfo | undefined> {
    validSandboxId(sandboxId);
    const sdk = await this.sdk();
    return sdk.Sandbox.getInfo(sandboxId, this.fields(budget)).catch(whenAbsent(isNotFound, undefined));
  }

  /** E2B metadata, decoded (ownership marker, launch key and the caller's labels). */
  labelsOf(info: E2BSandboxInfo): Readonly<Record<string, string>> | undefined {
    return metadataCodec.decode(info.metadata);
  }

  /**
   * `connect` (resume) an owned sandbox with the configured lifetime: the
   * SDK's instance carries the per-sandbox envd address. Connecting resumes
   * a paused sandbox and extends its lifetime to at least `lifetimeMs`; a
   * missing one is `NOT_FOUND`.
   */
  override async connect(sandboxId: string, operation: string, budget: CallBudget): Promise<E2BSandbox> {
    const sdk = await this.sdk();
    const fields = { ...this.fields(budget, this.sandboxUrlFor(sandboxId)), timeoutMs: this.options.lifetimeMs };
    const mapOther = (error: unknown) => this.mapError(error, { operation, sandboxId });
    return sdk.Sandbox.connect(sandboxId, fields).catch(absentAs(PROVIDER, isNotFound, sandboxId, operation, mapOther));
  }

  /** Connection fields for one SDK call: every value the SDK would otherwise read from `E2B_*` variables. */
  fields(budget: CallBudget, sandboxUrl?: string): E2BConnectionFields {
    const url = sandboxUrl ?? this.options.sandboxUrl;
    return {
      apiKey: this.options.apiKey,
      domain: this.options.domain,
      apiUrl: this.options.apiUrl,
      ...(url === undefined ? {} : { sandboxUrl: url }),
      debug: false,
      // 0 would mean "no timeout" to the SDK; the signal ends the call at the deadline anyway.
      requestTimeoutMs: Math.max(1, budget.remainingMs()),
      retries: this.options.rateLimitRetries,
      ...(budget.signal === undefined ? {} : { signal: budget.signal }),
    };
  }

  /** The envd base URL of one sandbox: the configured origin, else its per-sandbox host. */
  sandboxUrlFor(sandboxId: string): string {
    return this.options.sandboxUrl ?? `https://${ENVD_PORT}-${sandboxId}.${this.options.domain}`;
  }
}
