import { chmodSync, unlinkSync } from "node:fs";
import type { NetworkAllowList } from "@sandport/core";
import { AnchoredDirectory } from "../files/anchored-directory.js";
import { errorCode } from "../files/file-errors.js";
import type { ResolvedLocalOptions } from "../options.js";
import { EgressProxy } from "./egress-proxy.js";
import { egressSocketName } from "./egress-socket-name.js";

/**
 * The egress proxies one runtime instance serves: one per sandbox with an
 * allow list or with `"all"` (unless `hostNetwork`), started when its first command is planned, listening on
 * `<egress directory>/<instance>.<pid>.<start time>.sock` (a name of this
 * instance's own, so that several instances serving one sandbox never take
 * each other's socket, and of its process, so that a later runtime removes it
 * once the process is gone: see `egressSocketName`), closed when the sandbox
 * is destroyed.
 */
export class EgressProxies {
  readonly #options: Pick<ResolvedLocalOptions, "onEgressRefused" | "egressResolver">;
  readonly #socket = egressSocketName();
  readonly #started = new Map<string, Promise<EgressProxy>>();

  /** @param options where refusals are reported and how names are resolved */
  constructor(options: Pick<ResolvedLocalOptions, "onEgressRefused" | "egressResolver">) {
    this.#options = options;
  }

  /**
   * Starts (once) the proxy of sandbox `sandboxId` with `policy`, and returns
   * what a command's plan needs: the egress directory and the socket's name in it.
   */
  async serve(
    sandboxId: string,
    policy: NetworkAllowList | "all",
    directory: string,
  ): Promise<{ readonly directory: string; readonly socket: string }> {
    let started = this.#started.get(sandboxId);
    if (!started) {
      started = this.#start(sandboxId, policy, directory);
      started.catch(() => this.#started.delete(sandboxId));
      this.#started.set(sandboxId, started);
    }
    await started;
    return { directory, socket: this.#socket };
  }

  /** Closes the proxy of `sandboxId`, if this instance started one. */
  async close(sandboxId: string): Promise<void> {
    const started = this.#started.get(sandboxId);
    this.#started.delete(sandboxId);
    await started?.then((proxy) => proxy.close()).catch(() => {});
  }

  async #start(sandboxId: string, policy: NetworkAllowList | "all", directory: string): Promise<EgressProxy> {
    const { onEgressRefused, egressResolver } = this.#options;
    const proxy = new EgressProxy({
      sandboxId,
      policy,
      ...(egressResolver ? { resolve: egressResolver } : {}),
      ...(onEgressRefused ? { onRefused: onEgressRefused } : {}),
    });
    const held = AnchoredDirectory.open(directory);
    try {
      // Through the held directory: a short path whatever the root's length (Unix sockets allow 108 bytes).
      const path = held.entry(this.#socket);
      try {
        unlinkSync(path);
      } catch (error) {
        if (errorCode(error) !== "ENOENT") throw error;
      }
      await proxy.listen(path);
      // The relays run as the sandbox user: they may connect, the directory stays read-only to them.
      chmodSync(path, 0o666);
    } finally {
      held.close();
    }
    return proxy;
  }
}
