import { invalidRequest } from "../errors/factories.js";
import { EXEC_REQUEST_KEYS, type ExecRequest } from "../port/exec-request.js";
import { FILE_INPUT_KEYS, type FileInput } from "../port/file-input.js";
import { LAUNCH_SPEC_KEYS, type LaunchSpec, RESOURCE_LIMIT_KEYS } from "../port/launch-spec.js";
import type { NetworkPolicy } from "../port/network-policy.js";
import { OP_OPTION_KEYS, type OpOptions } from "../port/op-options.js";
import { type CommandCwd, validateCwd } from "./command-cwd.js";
import { validateEnv } from "./env.js";
import { refuseUnknownKeys, refuseUnknownShape } from "./known-keys.js";
import { validateLabels } from "./labels.js";
import { validateNetworkPolicy } from "./network-policy.js";
import { refuseNonNumber, validateMaxOutputBytes, validatePositiveNumber, validateTimeoutMs } from "./numbers.js";
import { validateSnapshotId } from "./snapshot-id.js";
import { normalizeWorkspacePath } from "./workspace-path.js";

/** Context for request validation: where the workspace is and whom to name in errors. */
export interface ValidationContext {
  /** Absolute workspace root inside the sandbox. Default: `/workspace`. */
  readonly root?: string;
  /** Provider to name in errors. */
  readonly provider?: string;
}

/** {@link ExecRequest} without `cwd`, kept a union (a plain `Omit` would merge its two forms). */
type ExecRequestWithoutCwd = ExecRequest extends infer Form
  ? Form extends ExecRequest
    ? Omit<Form, "cwd">
    : never
  : never;

/**
 * An exec request after validation: `cwd` is a {@link CommandCwd} (inside the
 * workspace, relative; elsewhere in the sandbox, absolute; `resolveCwd` in
 * `@sandport/core/adapter` makes it one absolute path), env is a frozen copy.
 */
export type ValidatedExecRequest = ExecRequestWithoutCwd & { readonly cwd: CommandCwd };

/** Largest file mode accepted: permission bits only, no setuid, setgid or sticky bit. */
export const MAX_FILE_MODE = 0o777;

/**
 * Validates an exec request: no key beyond {@link EXEC_REQUEST_KEYS}; exactly
 * one of `argv` (non-empty strings, no NUL) or `shell` (non-empty, no NUL);
 * `cwd` relative to the workspace or absolute anywhere in the sandbox, never
 * with a `..` segment (see `validateCwd`); env names; timeout; output cap; stdin type.
 * Throws `INVALID_REQUEST` before any provider call.
 */
export function validateExecRequest(request: unknown, context: ValidationContext = {}): ValidatedExecRequest {
  const provider = context.provider;
  refuseUnknownShape(request, EXEC_REQUEST_KEYS, "exec request", provider);
  const raw = request as Record<string, unknown>;
  const hasArgv = raw.argv !== undefined;
  const hasShell = raw.shell !== undefined;
  if (hasArgv === hasShell) throw invalidRequest("exec request needs exactly one of argv or shell", {}, provider);
  if (hasArgv) {
    const argv = raw.argv;
    if (!Array.isArray(argv) || argv.length === 0) throw invalidRequest("argv must be a non-empty array", {}, provider);
    argv.forEach((arg, index) => {
      if (typeof arg !== "string") throw invalidRequest(`argv[${index}] must be a string`, { index }, provider);
      if (arg.includes("\u0000")) throw invalidRequest(`argv[${index}] contains a NUL byte`, { index }, provider);
    });
    if (argv[0] === "") throw invalidRequest("argv[0] must name a program", {}, provider);
  } else if (typeof raw.shell !== "string" || raw.shell.trim() === "" || raw.shell.includes("\u0000")) {
    throw invalidRequest("shell must be a non-empty string without NUL bytes", {}, provider);
  }
  const cwd = validateCwd(raw.cwd, { root: context.root, provider });
  const stdin = raw.stdin;
  if (stdin !== undefined && typeof stdin !== "string" && !(stdin instanceof Uint8Array)) {
    throw invalidRequest("stdin must be a string or Uint8Array", {}, provider);
  }
  const validated = {
    ...(hasArgv ? { argv: Object.freeze([...(raw.argv as string[])]) } : { shell: raw.shell as string }),
    cwd,
    env: validateEnv(raw.env, "env", provider),
    timeoutMs: validateTimeoutMs(raw.timeoutMs, "timeoutMs", provider),
    maxOutputBytes: validateMaxOutputBytes(raw.maxOutputBytes, "maxOutputBytes", provider),
    stdin: stdin as string | Uint8Array | undefined,
  };
  return dropUndefined(validated) as ValidatedExecRequest;
}

/** A file after validation: a workspace-relative path and bytes. */
export interface ValidatedFile {
  /** Workspace-relative path. */
  readonly path: string;
  /** Content as bytes (strings encoded as UTF-8). */
  readonly content: Uint8Array;
  /** POSIX permission bits; `0o644` when absent. */
  readonly mode: number;
}

/**
 * Validates every file before any is written: paths inside the workspace and
 * unique, content a string or bytes, mode within `0o777` (no setuid, setgid or
 * sticky bit), no key beyond {@link FILE_INPUT_KEYS}.
 */
export function validateFiles(files: unknown, context: ValidationContext = {}): ValidatedFile[] {
  const provider = context.provider;
  if (!Array.isArray(files)) throw invalidRequest("files must be an array", {}, provider);
  const seen = new Set<string>();
  const encoder = new TextEncoder();
  return files.map((file: FileInput, index) => {
    refuseUnknownShape(file, FILE_INPUT_KEYS, `files[${index}]`, provider);
    const path = normalizeWorkspacePath(file.path, { root: context.root, field: `files[${index}].path`, provider });
    if (seen.has(path)) throw invalidRequest(`files[${index}].path ${path} is given twice`, { path }, provider);
    seen.add(path);
    const { content } = file;
    if (typeof content !== "string" && !(content instanceof Uint8Array)) {
      throw invalidRequest(`files[${index}].content must be a string or Uint8Array`, { path }, provider);
    }
    const mode = file.mode ?? 0o644;
    refuseNonNumber(mode, `files[${index}].mode`, provider);
    if (!Number.isInteger(mode) || mode < 0 || mode > MAX_FILE_MODE) {
      throw invalidRequest(
        `files[${index}].mode must be an integer from 0 to 0o777 (setuid, setgid and sticky bits are refused), got ${octal(mode)}`,
        { path, field: `files[${index}].mode` },
        provider,
      );
    }
    return { path, content: typeof content === "string" ? encoder.encode(content) : content, mode };
  });
}

/**
 * Validates a launch spec: no key beyond {@link LAUNCH_SPEC_KEYS} (nor in
 * `resources`), env, labels (no reserved keys), lifetime, resources, launch
 * key, network policy, the snapshot to start from. Returns a clean copy, its
 * `network` in canonical form (`"none"`, `"all"` or `{ allow }`: never a
 * boolean; see `validateNetworkPolicy`) and `from` as the snapshot's id
 * (a snapshot of another provider is refused; see `validateSnapshotId`).
 */
export function validateLaunchSpec(spec: unknown, provider?: string): ValidatedLaunchSpec {
  if (spec === undefined) return {};
  refuseUnknownShape(spec, LAUNCH_SPEC_KEYS, "launch spec", provider);
  const raw = spec as LaunchSpec;
  if (raw.template !== undefined && (typeof raw.template !== "string" || raw.template === "")) {
    throw invalidRequest("template must be a non-empty string", {}, provider);
  }
  if (
    raw.launchKey !== undefined &&
    (typeof raw.launchKey !== "string" || !/^[A-Za-z0-9._-]{1,128}$/.test(raw.launchKey))
  ) {
    throw invalidRequest("launchKey must be 1-128 characters of [A-Za-z0-9._-]", {}, provider);
  }
  const resources = raw.resources;
  if (resources !== undefined && (typeof resources !== "object" || resources === null)) {
    throw invalidRequest("resources must be an object", {}, provider);
  }
  if (resources !== undefined) refuseUnknownKeys(resources, RESOURCE_LIMIT_KEYS, "launch spec resources", provider);
  if (resources?.maxProcesses !== undefined) {
    refuseNonNumber(resources.maxProcesses, "resources.maxProcesses", provider);
    if (!Number.isInteger(resources.maxProcesses)) {
      throw invalidRequest("resources.maxProcesses must be an integer", {}, provider);
    }
  }
  return dropUndefined({
    ports: validatePorts(raw.ports, provider),
    template: raw.template,
    env: validateEnv(raw.env, "env", provider),
    labels: validateLabels(raw.labels, { provider }),
    lifetimeMs: validateTimeoutMs(raw.lifetimeMs, "lifetimeMs", provider),
    network: validateNetworkPolicy(raw.network, provider),
    launchKey: raw.launchKey,
    from: raw.from === undefined ? undefined : validateSnapshotId(raw.from, "from", provider),
    resources:
      resources === undefined
        ? undefined
        : dropUndefined({
            memoryMiB: validatePositiveNumber(resources.memoryMiB, "resources.memoryMiB", provider),
            cpus: validatePositiveNumber(resources.cpus, "resources.cpus", provider),
            maxProcesses: validatePositiveNumber(resources.maxProcesses, "resources.maxProcesses", provider),
            diskMiB: validatePositiveNumber(resources.diskMiB, "resources.diskMiB", provider),
          }),
  }) as ValidatedLaunchSpec;
}

/**
 * A launch spec as {@link validateLaunchSpec} returns it: its network policy
 * in canonical form, never a boolean, and `from` the snapshot's id.
 */
export type ValidatedLaunchSpec = Omit<LaunchSpec, "network" | "from"> & {
  readonly network?: NetworkPolicy;
  readonly from?: string;
};

/** Most ports one launch may declare; a provider's own limit may be lower. */
export const MAX_DECLARED_PORTS = 64;

/** Validates `LaunchSpec.ports`: integers from 1 to 65535, each once, at most {@link MAX_DECLARED_PORTS}. */
export function validatePorts(ports: unknown, provider?: string): readonly number[] | undefined {
  if (ports === undefined) return undefined;
  if (!Array.isArray(ports) || ports.length > MAX_DECLARED_PORTS) {
    throw invalidRequest(
      `ports must be an array of at most ${MAX_DECLARED_PORTS} port numbers`,
      { field: "ports" },
      provider,
    );
  }
  for (const port of ports) validatePort(port, provider);
  if (new Set(ports).size !== ports.length) {
    throw invalidRequest("ports must not name a port twice", { field: "ports" }, provider);
  }
  return Object.freeze([...ports]);
}

/** Validates one TCP port number (1-65535). */
export function validatePort(port: unknown, provider?: string): number {
  if (typeof port !== "number" || !Number.isInteger(port) || port < 1 || port > 65_535) {
    throw invalidRequest(`port ${JSON.stringify(port)} is not an integer from 1 to 65535`, { field: "port" }, provider);
  }
  return port;
}

/** Validates per-call options: no key beyond {@link OP_OPTION_KEYS}, `timeoutMs` as a duration, `signal` as an `AbortSignal`. */
export function validateOpOptions(op: unknown, provider?: string): OpOptions {
  if (op === undefined) return {};
  refuseUnknownShape(op, OP_OPTION_KEYS, "options", provider);
  const raw = op as OpOptions;
  if (raw.signal !== undefined && !(raw.signal instanceof AbortSignal)) {
    throw invalidRequest("signal must be an AbortSignal", {}, provider);
  }
  validateTimeoutMs(raw.timeoutMs, "timeoutMs", provider);
  return raw;
}

function dropUndefined<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}

/** A mode as written in source (`0o4755`), or as it is when not a non-negative integer. */
function octal(mode: number): string {
  return Number.isInteger(mode) && mode >= 0 ? `0o${mode.toString(8)}` : String(mode);
}
