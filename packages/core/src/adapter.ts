/**
 * @sandport/core/adapter: the adapter kit. What every provider adapter needs
 * and writes once here instead of once per adapter: the call wrapper, the
 * error table and factories, the SDK loader, the ownership codec, page
 * walking, verified destroy, background cleanup of abandoned launches, the
 * common options, the shell family kit for providers whose exec takes a
 * string, and output collection. Functions, not a base class: a runtime's
 * capabilities are the methods it has.
 *
 * Callers of runtimes import `@sandport/core`; adapter authors import this too.
 *
 * @module
 */

export { absentAs } from "./adapter/absent-sandbox.js";
export type {
  AdapterContextSettings,
  CallBudget,
  ContextOptions,
  ReclaimPrimitives,
} from "./adapter/adapter-context.js";
export { AdapterContext, createCallBudget } from "./adapter/adapter-context.js";
export type { AsyncCommandEnd } from "./adapter/async-command-result.js";
export { asyncCommandLogs, asyncCommandStatus, VANISHED_END, VANISHED_EXIT } from "./adapter/async-command-result.js";
export type {
  AsyncCommandOptions,
  AsyncCommandOutput,
  AsyncCommandRecipe,
  AsyncCommandSite,
  AsyncCommands,
} from "./adapter/async-commands.js";
export { asyncCommands, unknownCommand } from "./adapter/async-commands.js";
export { BackgroundTasks } from "./adapter/background-tasks.js";
export type { HandleRecipe, ProviderHandle, SandboxIdRule } from "./adapter/check-handle.js";
export { checkHandle, handleRecipe } from "./adapter/check-handle.js";
export type { CollectPagesOptions } from "./adapter/collect-pages.js";
export { collectPages, PAGE_RETRY_POLICY } from "./adapter/collect-pages.js";
export type { MissingCwdDetails } from "./adapter/command-cwd.js";
export { missingCwd, resolveCwd } from "./adapter/command-cwd.js";
export type {
  CommandRun,
  CommandRunOptions,
  StopReason,
  VendorCommand,
  VendorEnd,
  VendorProcess,
} from "./adapter/command-engine.js";
export {
  commandResult,
  KILL_DEADLINE_MS,
  lostOutput,
  ranOutOfTime,
  runCommandToEnd,
  SCRIPT_OUTPUT_BYTES,
  startCommandRun,
  VENDOR_TIMEOUT_SLACK_MS,
} from "./adapter/command-engine.js";
export { withLimit } from "./adapter/command-limit.js";
export type { ConfirmGoneOptions, GoneVerdict } from "./adapter/confirm-gone.js";
export { confirmGone } from "./adapter/confirm-gone.js";
export type { DeletePaceSettings } from "./adapter/delete-pace.js";
export { DeletePace } from "./adapter/delete-pace.js";
export type { DestroyPrimitives } from "./adapter/destroy-verified.js";
export { destroyVerified, VERIFY_MARGIN_MS } from "./adapter/destroy-verified.js";
export type { ErrorMapper, ErrorMapperOptions, ErrorSite } from "./adapter/error-mapper.js";
export { createErrorMapper, errorName } from "./adapter/error-mapper.js";
export type { ExecCommands, ExecOptions, ExecRecipe, ExecRun } from "./adapter/exec-commands.js";
export { execCommands } from "./adapter/exec-commands.js";
export type { FileArchiveWrite } from "./adapter/file-archive-write.js";
export { archiveBeatsFileRequests, sendsAsArchive, writeFileArchive } from "./adapter/file-archive-write.js";
export type {
  GuardedFileOps,
  GuardedFileOpsRecipe,
  GuardedFileSettings,
  GuardedFiles,
  GuardedFilesRecipe,
  GuardedReadTarget,
} from "./adapter/guarded-files.js";
export { guardedFileOps, guardedFiles } from "./adapter/guarded-files.js";
export type {
  FileContext,
  FileOptions,
  GuardedTarget,
  GuardedWrite,
  GuardSite,
  PathRule,
  WorkspaceRunner,
  WriteRule,
} from "./adapter/guarded-path.js";
export { guardPaths, onGuardedFiles, onGuardedPath } from "./adapter/guarded-path.js";
export type { ErrorClass, TransportFacts } from "./adapter/http-errors.js";
export {
  classifyHttpStatus,
  httpStatusOf,
  isConnectionLost,
  isUnreachable,
  retryAfterMs,
} from "./adapter/http-errors.js";
export { KnownSandboxes } from "./adapter/known-sandboxes.js";
export type { LaunchContext, LaunchOptions, LaunchRecipe, PlannedLaunch } from "./adapter/launch-recipe.js";
export { launchWithReclaim } from "./adapter/launch-recipe.js";
export { networkEnabled, refuseUnenforceableNetwork } from "./adapter/network-support.js";
export { satisfiesNodeRange } from "./adapter/node-range.js";
export { onOwnedInfo } from "./adapter/owned-info.js";
export type {
  FindOwnedOptions,
  GetOwnedOptions,
  LookupOptions,
  OwnedLookupSettings,
  OwnedLookups,
  SandboxListing,
} from "./adapter/owned-lookup.js";
export { findIdsByLaunchKey, findOwned, getOwned, listPages, ownedLookups } from "./adapter/owned-lookup.js";
export type { OwnershipCodec } from "./adapter/ownership.js";
export { callerLabels, isOwnedBy, matchesLabels, metadataCodec, ownerLabels } from "./adapter/ownership.js";
export { RECENT_SANDBOXES, RecentMap } from "./adapter/recent-map.js";
export type {
  AbandonedCreate,
  LaunchFailureOptions,
  LaunchReclaimReport,
  LaunchReclaimSettings,
} from "./adapter/reclaim-launch.js";
export { launchFailure } from "./adapter/reclaim-launch.js";
export type { RemoteDeclaration } from "./adapter/remote-capabilities.js";
export { remoteCapabilities } from "./adapter/remote-capabilities.js";
export type { OperationCall, OperationContext } from "./adapter/run-operation.js";
export { runOperation } from "./adapter/run-operation.js";
export type {
  CommonDefaults,
  CommonRuntimeOptions,
  RemoteDefaults,
  RemoteRuntimeExtras,
  RemoteRuntimeOptions,
  ResolvedCommonOptions,
  ResolvedRemote,
  ResolvedRemoteExtras,
  ResolvedRemoteOptions,
} from "./adapter/runtime-options.js";
export {
  COMMON_RUNTIME_OPTION_SHAPE,
  OptionReader,
  REMOTE_RUNTIME_OPTION_SHAPE,
  remoteTimeouts,
} from "./adapter/runtime-options.js";
export { destroyUnverified, foreignSandbox, processExited, sandboxNotFound } from "./adapter/sandbox-errors.js";
export type { SdkLoader, SdkLoaderOptions, SdkPackage } from "./adapter/sdk-loader.js";
export { createSdkLoader } from "./adapter/sdk-loader.js";
export type { ShellTerminalPlan, ShellTerminalVendor } from "./adapter/shell-terminal.js";
export { ShellTerminal, shellTerminalPlan } from "./adapter/shell-terminal.js";
export type { SnapshotNaming, SnapshotRecord } from "./adapter/snapshot-names.js";
export { decodeSnapshotName, encodeSnapshotName } from "./adapter/snapshot-names.js";
export type {
  SpawnOptions,
  SpawnRecipe,
  SpawnSite,
  SpawnStart,
  StdinCommand,
  VendorStdin,
} from "./adapter/spawned-process.js";
export { SpawnedProcess, spawnCommand, spawnCommands } from "./adapter/spawned-process.js";
export type { CommandDefaultOptions, PlannedCommand, ValidCommand } from "./adapter/valid-command.js";
export { validCommand } from "./adapter/valid-command.js";
export { whenAbsent } from "./adapter/when-absent.js";
export type { WorkspaceEntry } from "./adapter/workspace-entry.js";
export { workspaceEntry } from "./adapter/workspace-entry.js";
export type { AsyncOutputCapInput, RunRecord } from "./shell/async-output-cap.js";
export { asyncOutputCapScript, OUTPUT_CAP_EXIT, parseRunRecord } from "./shell/async-output-cap.js";
export type { AsyncScriptInput, ExitRecord, SessionFiles, StartRecord } from "./shell/async-script.js";
export { asyncScript, parseExitRecord, parseStartLine, parseStartRecord, sessionFiles } from "./shell/async-script.js";
export { chmodFailure, chmodScript, modesToSet } from "./shell/chmod.js";
export { assertCommandFits, MAX_COMMAND_BYTES } from "./shell/command-size.js";
export type { ArchiveFile } from "./shell/file-archive.js";
export { encodeFileArchive, fileArchiveScript } from "./shell/file-archive.js";
export type { ReadCommandOutcome } from "./shell/guarded-read.js";
export {
  guardedReadOutputBytes,
  guardedReadScript,
  INLINE_READ_BYTES,
  readCommandOutcome,
} from "./shell/guarded-read.js";
export { markerSweepScript } from "./shell/marker-sweep.js";
export { cappedOutputScript } from "./shell/output-cap.js";
export type { StdinPlan, StdinStaging } from "./shell/stdin.js";
export { EMBEDDED_STDIN_BYTES, planStdin } from "./shell/stdin.js";
export type { GuardedPath } from "./shell/symlink-guard.js";
export { checkSymlinkGuard, symlinkGuardScript } from "./shell/symlink-guard.js";
export { ByteOutputCollector } from "./streams/byte-output-collector.js";
export { EventQueue } from "./streams/event-queue.js";
export type { StreamedRun } from "./streams/exec-event-stream.js";
export { execEventStream } from "./streams/exec-event-stream.js";
export type { OutputStream } from "./streams/output-collector.js";
export { OutputCollector } from "./streams/output-collector.js";
export { pause } from "./timing/abort.js";
export { deadlineSignal } from "./timing/deadline-signal.js";
