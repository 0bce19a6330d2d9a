import { keyList, type SandboxHandle, type SandboxRuntime } from "@sandport/core";

/** What {@link createMastraFilesystem} needs. */
export interface MastraFilesystemOptions<H extends SandboxHandle = SandboxHandle> {
  /** The runtime the sandbox lives on. */
  readonly runtime: SandboxRuntime<H>;
  /**
   * The sandbox, or a function resolving it when first needed: pass
   * `() => sandbox.sandboxHandle()` to share the sandbox of a
   * `createMastraSandbox` (it starts the sandbox if needed).
   */
  readonly handle: H | (() => Promise<H>);
  /** The filesystem's `id`. Default: `sandport-fs-<runtime.provider>`. */
  readonly id?: string;
  /** Refuse every write with Mastra's `WorkspaceReadOnlyError`, as its `LocalFilesystem` does (its workspace tools check it too). Default: `false`. */
  readonly readOnly?: boolean;
}

/** Every key of {@link MastraFilesystemOptions}; any other is refused, naming the nearest known one. */
export const MASTRA_FILESYSTEM_OPTION_KEYS = keyList<MastraFilesystemOptions>({
  runtime: true,
  handle: true,
  id: true,
  readOnly: true,
});
