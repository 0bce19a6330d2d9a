import type { OpOptions } from "@sandport/core";
import { onOwnedInfo } from "@sandport/core/adapter";
import type { DaytonaContext } from "./context.js";

/** What Daytona's API reports about a sandbox beyond the port's handle. */
export interface DaytonaSandboxDetails {
  /** The sandbox id. */
  readonly id: string;
  /** Daytona's state (`started`, `stopped`, `archived`, `error`, ...). */
  readonly state: string | undefined;
  /** The class of the sandbox (`container`, `linux-vm`), where the API reports one. */
  readonly sandboxClass: string | undefined;
  /** The warm pool the sandbox waits in, while it is an unclaimed member of one; else `undefined`. */
  readonly warmPoolId: string | undefined;
}

/**
 * Reads a sandbox through the SDK's low-level API (one `GET /api/sandbox/{id}`):
 * its state, `sandboxClass` and `warmPoolId`, which the wire response carries
 * and the SDK's `Sandbox` class of the oldest supported SDK (0.180) does not
 * copy. A sandbox that is not ours rejects `FOREIGN_SANDBOX`; an absent one `NOT_FOUND`.
 */
export function sandboxDetails(
  context: DaytonaContext,
  handle: unknown,
  op?: OpOptions,
): Promise<DaytonaSandboxDetails> {
  return onOwnedInfo(context, handle, op, "sandboxDetails", context.options.timeouts.lookupMs, async (record) => ({
    id: record.id,
    state: record.state,
    sandboxClass: record.sandboxClass,
    warmPoolId: record.warmPoolId ?? undefined,
  }));
}
