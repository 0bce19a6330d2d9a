/**
 * @sandport/core: the sandbox runtime port, capability model, request
 * validation, deadlines, retries and the orchestrator. Knows no provider.
 *
 * @module
 */

export type { BridgeOptions } from "./bridges/bridge-options.js";
export { BRIDGE_OPTION_SHAPE, bridgeBaseDirectory, checkBridgeOptions } from "./bridges/bridge-options.js";
export { exitStatus, KILLED_EXIT_STATUS, TIMED_OUT_EXIT_STATUS } from "./bridges/exit-status.js";
export { isNetworkRefusal } from "./bridges/network-refusal.js";
export { whenFound } from "./bridges/when-found.js";
export type { Absence, Availability } from "./capabilities/absence.js";
export { ABSENCES, isAbsence, isPendingEvidence } from "./capabilities/absence.js";
export { assertCapabilitiesConsistent, findCapabilityContradictions } from "./capabilities/assert-consistent.js";
export type {
  CapabilityName,
  DeclaredCapability,
  ModeName,
  StructuralCapability,
} from "./capabilities/capability-names.js";
export { DECLARED_CAPABILITIES, MODE_NAMES, STRUCTURAL_CAPABILITIES } from "./capabilities/capability-names.js";
export type { DeclaredCapabilities } from "./capabilities/declared-capabilities.js";
export type {
  EvidenceOptions,
  EvidenceWarning,
  EvidenceWarningCode,
} from "./capabilities/evidence-applicability.js";
export { applicableEvidence } from "./capabilities/evidence-applicability.js";
export { endpointKey, evidenceEndpoint } from "./capabilities/evidence-endpoint.js";
export type {
  AdapterVersion,
  ConformanceSummary,
  EvidenceEndpoint,
  EvidenceRecord,
  Observations,
  ProbedCapability,
  ProbeParameters,
  ProbeRecord,
} from "./capabilities/evidence-record.js";
export { EVIDENCE_FORMAT, EVIDENCE_FORMAT_V2 } from "./capabilities/evidence-record.js";
export type {
  CapabilityModes,
  FilesystemMode,
  IsolationMode,
  LifetimeMode,
  NetworkPolicyMode,
  OutputStreamsMode,
  StopKeepsMode,
} from "./capabilities/modes.js";
export { MODE_VALUES } from "./capabilities/modes.js";
export { parseEvidenceRecord } from "./capabilities/parse-evidence-record.js";
export { resolveCapabilities } from "./capabilities/resolve-capabilities.js";
export type { CapabilitySource, ResolvedCapabilities } from "./capabilities/resolved-capabilities.js";

export type { SandportErrorCode } from "./errors/error-code.js";
export { ERROR_CODES, MAX_READ_BYTES } from "./errors/error-code.js";
export { invalidRequest, toSandportError, unsupported } from "./errors/factories.js";
export type { SandportErrorOptions } from "./errors/sandport-error.js";
export { SandportError } from "./errors/sandport-error.js";
export type { CapabilityNeed } from "./fleet/failover/capability-needs.js";
export { capabilityNeeds, unmetNeeds } from "./fleet/failover/capability-needs.js";
export type { FailoverCode, FailoverPolicy } from "./fleet/failover/failover-policy.js";
export { FAILOVER_CODES, FAILOVER_POLICY_KEYS } from "./fleet/failover/failover-policy.js";
export type { RuntimeRef } from "./fleet/failover/runtime-ref.js";
export type { FleetClock } from "./fleet/fleet-clock.js";
export { SYSTEM_CLOCK } from "./fleet/fleet-clock.js";
export type { LimitedRuntime } from "./fleet/limit-runtime.js";
export { limitRuntime } from "./fleet/limit-runtime.js";
export type { LimiterEvent, LimiterOptions } from "./fleet/limiter-options.js";
export { LIMITER_OPTION_KEYS } from "./fleet/limiter-options.js";
export type { PoolCloseReport, PoolEvent, PoolFailure, ReplaceReason } from "./fleet/pool-events.js";
export type { LeaseOptions, LeaseState, ReleaseOptions, SandboxLease } from "./fleet/pool-lease.js";
export { LEASE_OPTION_KEYS, RELEASE_OPTION_KEYS } from "./fleet/pool-lease.js";
export type { PoolTimeouts, SandboxPoolOptions } from "./fleet/pool-options.js";
export { DEFAULT_POOL_TIMEOUTS, POOL_LABEL, POOL_OPTION_KEYS } from "./fleet/pool-options.js";
export type { PoolCloseOptions } from "./fleet/sandbox-pool.js";
export { SandboxPool } from "./fleet/sandbox-pool.js";
export { estimateUsage, type MeteredUsage } from "./fleet/usage/estimate-usage.js";
export type { PriceName, PriceTable, ProviderPrices } from "./fleet/usage/price-table.js";
export { PRICE_NAMES, PRICE_TABLE_KEYS, validatePriceTable } from "./fleet/usage/price-table.js";
export type { PriceLine, SandboxUsage, UnpricedItem, UsageEnd, UsageEstimate } from "./fleet/usage/sandbox-usage.js";

export type { OrchestratorEvent, OrchestratorListener } from "./orchestrator/events.js";
export type {
  OrchestratorOptions,
  OrchestratorTimeouts,
  RunOptions,
  SessionOptions,
  UnknownLaunchContext,
} from "./orchestrator/options.js";
export {
  DEFAULT_ORCHESTRATOR_TIMEOUTS,
  ORCHESTRATOR_OPTION_KEYS,
  ORCHESTRATOR_TIMEOUT_KEYS,
  RUN_OPTION_KEYS,
  SESSION_OPTION_KEYS,
} from "./orchestrator/options.js";
export { SandboxOrchestrator } from "./orchestrator/sandbox-orchestrator.js";
export { SandboxSession } from "./orchestrator/sandbox-session.js";
export type { AcquireSpec, ReuseSpec, TeardownPolicy, Workload, WorkloadStep } from "./orchestrator/workload.js";
export { isReuseSpec, REUSE_SPEC_KEYS, WORKLOAD_KEYS, WORKLOAD_STEP_KEYS } from "./orchestrator/workload.js";
export type { WorkloadStage } from "./orchestrator/workload-error.js";
export { WorkloadError } from "./orchestrator/workload-error.js";
export type {
  PossibleLeak,
  StepRecord,
  TeardownReport,
  WorkloadResult,
  WorkloadTimings,
} from "./orchestrator/workload-result.js";

export type { CommandRef, CommandStatus } from "./port/command.js";
export type { ExecEvent, ExecExitedEvent, ExecOutputEvent, ExecStartedEvent } from "./port/exec-event.js";
export { COMMAND_ENV, EXEC_MARKER_ENV, RESERVED_ENV, SESSION_ENV } from "./port/exec-markers.js";
export type { ArgvExecRequest, ExecOptions, ExecRequest, ShellExecRequest } from "./port/exec-request.js";
export { EXEC_REQUEST_KEYS } from "./port/exec-request.js";
export type { ExecResult, ResourceLimitKind } from "./port/exec-result.js";
export type { FileInfo, FileKind } from "./port/file-info.js";
export type { FileInput } from "./port/file-input.js";
export { FILE_INPUT_KEYS } from "./port/file-input.js";
export type { ForkOptions } from "./port/fork-options.js";
export { FORK_OPTION_KEYS } from "./port/fork-options.js";
export type { Labels } from "./port/labels.js";
export type { LaunchSpec, ResourceLimits } from "./port/launch-spec.js";
export { LAUNCH_SPEC_KEYS, RESOURCE_LIMIT_KEYS } from "./port/launch-spec.js";
export type { NetworkAllowList, NetworkPolicy } from "./port/network-policy.js";
export { NETWORK_ALLOW_LIST_KEYS } from "./port/network-policy.js";
export type { OpOptions } from "./port/op-options.js";
export { OP_OPTION_KEYS } from "./port/op-options.js";
export type { PortEndpoint } from "./port/port-endpoint.js";
export type { ReadOptions } from "./port/read-options.js";
export { DEFAULT_READ_MAX_BYTES, READ_OPTION_KEYS } from "./port/read-options.js";
export type { ReadStreamOptions } from "./port/read-stream-options.js";
export { READ_STREAM_OPTION_KEYS } from "./port/read-stream-options.js";
export { LAUNCH_KEY_LABEL, OWNER_LABEL } from "./port/reserved-labels.js";
export type { GrantedResources, SandboxHandle } from "./port/sandbox-handle.js";
export type { SandboxProcess } from "./port/sandbox-process.js";
export type { SandboxRuntime, StartCommandRequest } from "./port/sandbox-runtime.js";
export { SPECIFICATION_VERSION, START_COMMAND_REQUEST_KEYS } from "./port/sandbox-runtime.js";
export type { SnapshotContents, SnapshotOptions, SnapshotRef } from "./port/snapshot.js";
export { SNAPSHOT_OPTION_KEYS } from "./port/snapshot.js";
export type {
  Terminal,
  TerminalEvent,
  TerminalExitedEvent,
  TerminalOutputEvent,
  TerminalRequest,
  TerminalSignal,
  TerminalSize,
} from "./port/terminal.js";
export {
  DEFAULT_TERMINAL_SIZE,
  MAX_TERMINAL_CELLS,
  TERMINAL_REQUEST_KEYS,
  TERMINAL_SIGNALS,
} from "./port/terminal.js";

export type { CommandForm, ShellCommandParts } from "./shell/quote.js";
export {
  composeShellCommand,
  enterCwdScript,
  enterWorkspaceScript,
  isMissingCwdExit,
  MISSING_CWD_EXIT,
  MISSING_CWD_LINE,
  makeWorkspaceScript,
  quoteArgv,
  quoteShellArg,
  toShellScript,
} from "./shell/quote.js";

export { abortError, sleep, throwIfAborted } from "./timing/abort.js";
export type { OperationTimeouts } from "./timing/operation-timeouts.js";
export { OPERATION_TIMEOUT_NAMES } from "./timing/operation-timeouts.js";
export type { AttemptInfo, RetryOptions, RetryPolicy } from "./timing/retry.js";
export { DEFAULT_RETRY_POLICY, retry } from "./timing/retry.js";
export type { CommandCwd, CwdOptions } from "./validation/command-cwd.js";
export { validateCwd } from "./validation/command-cwd.js";
export { splitStartCommandRequest, validateCommandRef, validateSessionId } from "./validation/commands.js";
export { refuseReservedEnv, validateEnv } from "./validation/env.js";
export type { ValidatedForkOptions } from "./validation/fork-options.js";
export { validateForkOptions } from "./validation/fork-options.js";
export type { KeyShape } from "./validation/known-keys.js";
export { describeValue, keyList, nearestKey, refuseUnknownKeys } from "./validation/known-keys.js";
export { RESERVED_LABEL_PREFIX, validateLabelQuery, validateLabels } from "./validation/labels.js";
export type { CidrRule, DomainRule, NetworkRule } from "./validation/network-policy.js";
export {
  addressToBigInt,
  cidrContains,
  MAX_NETWORK_RULES,
  parseNetworkRule,
  validateNetworkPolicy,
} from "./validation/network-policy.js";
export {
  MAX_OUTPUT_BYTES,
  MAX_TIMEOUT_MS,
  refuseNonNumber,
  validateMaxOutputBytes,
  validatePositiveNumber,
  validateTimeoutMs,
} from "./validation/numbers.js";
export type { ValidatedReadOptions } from "./validation/read-options.js";
export { readLimitExceeded, validateReadOptions } from "./validation/read-options.js";
export type { ValidatedReadStreamOptions } from "./validation/read-stream-options.js";
export { streamLimitExceeded, validateReadStreamOptions } from "./validation/read-stream-options.js";
export type {
  ValidatedExecRequest,
  ValidatedFile,
  ValidatedLaunchSpec,
  ValidationContext,
} from "./validation/requests.js";
export {
  MAX_DECLARED_PORTS,
  MAX_FILE_MODE,
  validateExecRequest,
  validateFiles,
  validateLaunchSpec,
  validateOpOptions,
  validatePort,
  validatePorts,
} from "./validation/requests.js";
export { validateSnapshotId } from "./validation/snapshot-id.js";
export type { ValidatedSnapshotOptions } from "./validation/snapshot-options.js";
export { validateSnapshotOptions } from "./validation/snapshot-options.js";
export type { ValidatedTerminalRequest } from "./validation/terminal-request.js";
export {
  validateTerminalRequest,
  validateTerminalSignal,
  validateTerminalSize,
} from "./validation/terminal-request.js";
export type { SandboxPathOptions, WorkspacePathOptions } from "./validation/workspace-path.js";
export { normalizeSandboxPath, normalizeWorkspacePath, toSandboxPath } from "./validation/workspace-path.js";
