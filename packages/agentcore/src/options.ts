import { posix } from "node:path";
import { keyList, type OperationTimeouts } from "@sandport/core";
import {
  OptionReader,
  REMOTE_RUNTIME_OPTION_SHAPE,
  type RemoteRuntimeExtras,
  type RemoteRuntimeOptions,
  type ResolvedRemote,
  remoteTimeouts,
} from "@sandport/core/adapter";
import { PROVIDER } from "./handle.js";
import type { AgentCoreSdkSource } from "./internal/sdk.js";

/**
 * Options of {@link AgentCoreRuntime}. Nothing is read from the environment,
 * `~/.aws` or instance metadata: credentials, region, endpoint and interpreter
 * come from here, and the SDK client is built with every setting it would
 * otherwise load. The common and remote options (`owner`, `runBudgetMs`,
 * `maxOutputBytes`, `timeouts`, `orphanCleanupMs`, `sdk` for the
 * `@aws-sdk/client-bedrock-agentcore` module, `onBackgroundError`) mean what
 * they mean in every runtime; `network` says what the code interpreter's own
 * network mode gives (default `false`), `listPageSize` is 1-100, default 100.
 */
export interface AgentCoreRuntimeOptions
  extends RemoteRuntimeOptions<AgentCoreSdkSource>,
    Pick<RemoteRuntimeExtras, "listPageSize" | "lifetimeMs" | "workspaceRoot"> {
  /** AWS region, e.g. `us-east-1`. Required (never `AWS_REGION`). */
  readonly region: string;
  /** AWS access key id. Required (never `AWS_ACCESS_KEY_ID`, a profile, SSO or instance credentials). */
  readonly accessKeyId: string;
  /** AWS secret access key. Required. */
  readonly secretAccessKey: string;
  /** Session token of temporary credentials. */
  readonly sessionToken?: string;
  /** The code interpreter sessions are started on. Default `aws.codeinterpreter.v1` (the AWS-managed one). */
  readonly codeInterpreterId?: string;
  /** Data-plane endpoint. Default `https://bedrock-agentcore.<region>.amazonaws.com`. */
  readonly endpoint?: string;
  /**
   * The directory a session's commands start in and its file tools' paths are
   * relative to. Default `/opt/amazon/genesis1p-tools/var` (unverified: a
   * canary checks it).
   */
  readonly workingDirectory?: string;
  /** Absolute state directory (launch env, labels), outside the workspace. Default `<workingDirectory>/.sandport`. */
  readonly stateDirectory?: string;
  /** Retries of the calls that are safe to repeat (Get, List, Stop, reads): total attempts, 1-10. Default 3. Invoke of a command is never repeated. */
  readonly maxAttempts?: number;
}

/** Every option `AgentCoreRuntime` takes; any other is refused, naming the nearest known one. */
export const AGENTCORE_OPTION_KEYS = keyList<AgentCoreRuntimeOptions>({
  ...REMOTE_RUNTIME_OPTION_SHAPE,
  region: true,
  accessKeyId: true,
  secretAccessKey: true,
  sessionToken: true,
  codeInterpreterId: true,
  endpoint: true,
  workingDirectory: true,
  workspaceRoot: true,
  stateDirectory: true,
  lifetimeMs: true,
  listPageSize: true,
  maxAttempts: true,
});

/** Options after defaults and validation. */
export type ResolvedOptions = ResolvedRemote<typeof AGENTCORE_DEFAULTS> & {
  readonly region: string;
  readonly credentials: {
    readonly accessKeyId: string;
    readonly secretAccessKey: string;
    readonly sessionToken?: string;
  };
  readonly codeInterpreterId: string;
  readonly endpoint: string;
  readonly workingDirectory: string;
  readonly stateDirectory: string;
  readonly maxAttempts: number;
};

/** Default per-call deadlines, used when a call's `OpOptions.timeoutMs` is absent. */
export const DEFAULT_AGENTCORE_TIMEOUTS: OperationTimeouts = remoteTimeouts({
  launchMs: 120_000,
  lifecycleMs: 60_000,
});

/** AgentCore's synchronous request limit (15 minutes): no command may be given longer. */
export const MAX_EXEC_TIMEOUT_MS = 900_000;
/** The longest session AgentCore keeps (`sessionTimeoutSeconds` 28 800). */
export const MAX_LIFETIME_MS = 28_800_000;
/** The working directory sessions are believed to start in. */
const WORKING_DIRECTORY = "/opt/amazon/genesis1p-tools/var";
const REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;
const INTERPRETER = /^(aws\.codeinterpreter\.v1|[a-zA-Z][a-zA-Z0-9_]{0,47}-[a-zA-Z0-9]{10})$/;

/** The defaults of the remote options AgentCore shares. */
const AGENTCORE_DEFAULTS = {
  runBudgetMs: 300_000,
  maxOutputBytes: 4 * 1024 * 1024,
  timeouts: DEFAULT_AGENTCORE_TIMEOUTS,
  network: false,
  lifetimeMs: 3_600_000,
  listPageSize: { max: 100, fallback: 100 },
  workspaceRoot: `${WORKING_DIRECTORY}/workspace`,
} as const;

/** Validates options and fills defaults. Throws `INVALID_REQUEST`; does no I/O. */
export function resolveOptions(given: AgentCoreRuntimeOptions): ResolvedOptions {
  const read = new OptionReader("AgentCoreRuntime", PROVIDER);
  const options = read.object(given, AGENTCORE_OPTION_KEYS);
  const workingDirectory = read.absolutePath(options.workingDirectory, "workingDirectory") ?? WORKING_DIRECTORY;
  const common = read.remote(options, {
    ...AGENTCORE_DEFAULTS,
    workspaceRoot: posix.join(workingDirectory, "workspace"),
  });
  if (common.runBudgetMs > MAX_EXEC_TIMEOUT_MS) {
    throw read.refuse("runBudgetMs", `must be at most ${MAX_EXEC_TIMEOUT_MS} (AgentCore's 15-minute request limit)`);
  }
  if (common.lifetimeMs > MAX_LIFETIME_MS || common.lifetimeMs < 1000) {
    throw read.refuse("lifetimeMs", `must be from 1000 to ${MAX_LIFETIME_MS} (sessionTimeoutSeconds 1-28800)`);
  }
  const region = read.requiredText(options.region, "region", "nothing is read from AWS_REGION or ~/.aws/config");
  if (!REGION.test(region)) throw read.refuse("region", "is not an AWS region name");
  const accessKeyId = read.requiredText(options.accessKeyId, "accessKeyId", "no AWS credential chain is consulted");
  const secretAccessKey = read.requiredText(
    options.secretAccessKey,
    "secretAccessKey",
    "no AWS credential chain is consulted",
  );
  const sessionToken = read.text(options.sessionToken, "sessionToken");
  const codeInterpreterId = read.text(options.codeInterpreterId, "codeInterpreterId") ?? "aws.codeinterpreter.v1";
  if (!INTERPRETER.test(codeInterpreterId)) {
    throw read.refuse(
      "codeInterpreterId",
      "is neither aws.codeinterpreter.v1 nor a custom interpreter id (<name>-<10 characters>)",
    );
  }
  const stateDirectory =
    read.absolutePath(options.stateDirectory, "stateDirectory") ?? posix.join(workingDirectory, ".sandport");
  if (common.workspaceRoot === "/") throw read.refuse("workspaceRoot", "must not be /");
  if (isWithin(stateDirectory, common.workspaceRoot) || isWithin(common.workspaceRoot, stateDirectory)) {
    throw read.refuse("stateDirectory", "must lie outside the workspace (and the workspace outside it)");
  }
  return {
    ...common,
    region,
    credentials: { accessKeyId, secretAccessKey, ...(sessionToken === undefined ? {} : { sessionToken }) },
    codeInterpreterId,
    endpoint: read.url(options.endpoint, "endpoint") ?? `https://bedrock-agentcore.${region}.amazonaws.com`,
    workingDirectory,
    stateDirectory,
    maxAttempts: read.integer(options.maxAttempts, "maxAttempts", 1, 10) ?? 3,
  };
}

/**
 * Where `absolute` (a session path) is from the working directory, where
 * commands start and file tools resolve paths: the form every path sent takes.
 * Starts with `./` or `..`, never `-` or `/`.
 */
export function fromWorkingDirectory(options: Pick<ResolvedOptions, "workingDirectory">, absolute: string): string {
  const relative = posix.relative(options.workingDirectory, absolute);
  if (relative === "") return ".";
  return relative.startsWith("..") ? relative : `./${relative}`;
}

function isWithin(path: string, directory: string): boolean {
  return path === directory || path.startsWith(directory === "/" ? "/" : `${directory}/`);
}
