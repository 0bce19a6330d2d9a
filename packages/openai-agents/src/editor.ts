import type { ApplyPatchOperation, ApplyPatchResult, Editor } from "@openai/agents-core";
import { type SandboxHandle, type SandboxRuntime, SandportError, whenFound } from "@sandport/core";
import { type AgentsSdk, loadAgentsSdk } from "./internal/sdk.js";
import { refuseRunAs } from "./run-as.js";

type Operation<T extends ApplyPatchOperation["type"]> = Extract<ApplyPatchOperation, { type: T }>;

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * The `apply_patch` editor over a Sandport sandbox: V4A diffs applied with the
 * framework's own `applyDiff`, files read and written through the port. A
 * move or a deletion needs the runtime's `remove`; without it they are refused
 * before anything is written.
 */
export class SandportEditor<H extends SandboxHandle> implements Editor {
  readonly #runtime: SandboxRuntime<H>;
  readonly #handle: H;
  readonly #runAs: string | undefined;

  constructor(runtime: SandboxRuntime<H>, handle: H, runAs?: string) {
    this.#runtime = runtime;
    this.#handle = handle;
    this.#runAs = runAs;
  }

  async #sdk(): Promise<AgentsSdk> {
    const sdk = await loadAgentsSdk();
    refuseRunAs(sdk, this.#runtime, this.#runAs);
    return sdk;
  }

  /**
   * Creates a file from a create-mode diff. Something already at the path (a
   * file or a directory) is refused with the framework's `UserError`, as its
   * own editors refuse it: `create_file` never overwrites.
   */
  async createFile(operation: Operation<"create_file">): Promise<ApplyPatchResult> {
    const sdk = await this.#sdk();
    const content = applyOrRefuse(sdk, "", operation.diff, "create", operation.path);
    if (await this.#exists(operation.path))
      throw new sdk.UserError(`Cannot create file because it already exists: ${operation.path}`);
    await this.#runtime.writeFiles(this.#handle, [{ path: operation.path, content }]);
    return { status: "completed", output: `Created ${operation.path}` };
  }

  /** Patches an existing file, and moves it when the operation says `moveTo`. */
  async updateFile(operation: Operation<"update_file">): Promise<ApplyPatchResult> {
    const sdk = await this.#sdk();
    const moving = operation.moveTo !== undefined && operation.moveTo !== operation.path;
    if (moving) this.#requireRemove(sdk, "move a file");
    const original = await this.#readText(sdk, operation.path);
    const content = applyOrRefuse(sdk, original, operation.diff, "default", operation.path);
    const target = moving ? (operation.moveTo as string) : operation.path;
    await this.#runtime.writeFiles(this.#handle, [{ path: target, content }]);
    if (moving) await this.#runtime.remove?.(this.#handle, operation.path);
    return { status: "completed", output: moving ? `Updated ${operation.path} -> ${target}` : `Updated ${target}` };
  }

  /** Deletes a file; a missing one is the framework's file-not-found error. */
  async deleteFile(operation: Operation<"delete_file">): Promise<ApplyPatchResult> {
    const sdk = await this.#sdk();
    const remove = this.#requireRemove(sdk, "delete a file");
    await this.#readText(sdk, operation.path);
    await remove.call(this.#runtime, this.#handle, operation.path);
    return { status: "completed", output: `Deleted ${operation.path}` };
  }

  #requireRemove(sdk: AgentsSdk, what: string): NonNullable<SandboxRuntime<H>["remove"]> {
    const remove = this.#runtime.remove;
    if (typeof remove !== "function") {
      throw new sdk.SandboxUnsupportedFeatureError(
        `${this.#runtime.provider} has no remove, so apply_patch cannot ${what}`,
        {
          provider: this.#runtime.provider,
        },
      );
    }
    return remove;
  }

  /** Whether anything is at `path`: the runtime's `stat` where it has one, else a read that finds it or not. */
  async #exists(path: string): Promise<boolean> {
    const stat = this.#runtime.stat;
    if (typeof stat === "function")
      return (await whenFound(stat.call(this.#runtime, this.#handle, path))) !== undefined;
    return (await whenFound(this.#runtime.readFile(this.#handle, path))) !== undefined;
  }

  async #readText(sdk: AgentsSdk, path: string): Promise<string> {
    let bytes: Uint8Array;
    try {
      bytes = await this.#runtime.readFile(this.#handle, path);
    } catch (error) {
      if (SandportError.hasCode(error, "NOT_FOUND"))
        throw new sdk.SandboxApplyPatchFileNotFoundError(`apply_patch: no file ${path}`, { path, cause: error });
      throw error;
    }
    try {
      return decoder.decode(bytes);
    } catch (error) {
      throw new sdk.SandboxApplyPatchDecodeError(`apply_patch: ${path} is not UTF-8 text`, { path, cause: error });
    }
  }
}

function applyOrRefuse(sdk: AgentsSdk, input: string, diff: string, mode: "default" | "create", path: string): string {
  try {
    return sdk.applyDiff(input, diff, mode);
  } catch (error) {
    throw new sdk.SandboxApplyPatchDiffError(`apply_patch: the diff for ${path} does not apply`, {
      path,
      cause: error,
    });
  }
}
