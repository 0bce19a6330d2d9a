import type { OpOptions } from "../port/op-options.js";
import type { AdapterContext, ContextOptions } from "./adapter-context.js";
import type { OperationCall } from "./run-operation.js";
import { sandboxNotFound } from "./sandbox-errors.js";

/**
 * The frame of a port method that works from what the provider reports about
 * the sandbox (its state, its record) rather than on a connected instance: the
 * context's `onHandle`, then the sandbox's info when it is ours (`ownedInfo`:
 * one lookup; `FOREIGN_SANDBOX` when it is not ours, `NOT_FOUND` when it does
 * not exist), then `work` with that info.
 */
export function onOwnedInfo<Info, T>(
  context: AdapterContext<ContextOptions, unknown, Info, unknown>,
  handle: unknown,
  op: OpOptions | undefined,
  operation: string,
  defaultTimeoutMs: number,
  work: (info: Info, call: OperationCall, sandboxId: string) => Promise<T>,
): Promise<T> {
  return context.onHandle(handle, op, operation, defaultTimeoutMs, async (sandboxId, call) => {
    const info = await context.ownedInfo(sandboxId, operation, call);
    if (info === undefined) throw sandboxNotFound(context.provider, sandboxId, operation);
    return work(info, call, sandboxId);
  });
}
