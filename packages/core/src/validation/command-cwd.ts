import { invalidRequest } from "../errors/factories.js";
import { normalizeSandboxPath, normalizeWorkspacePath } from "./workspace-path.js";

/**
 * A command's working directory after validation. Inside the workspace it is
 * kept workspace-relative (`""` = the root), so a runtime that maps the
 * workspace somewhere else (a host directory, a provider's home) maps it the
 * same way as a file path. Anywhere else in the sandbox (`/tmp`, `/`) it is
 * an absolute, normalised path, meant exactly as written.
 */
export type CommandCwd =
  | { readonly kind: "workspace"; readonly path: string }
  | { readonly kind: "sandbox"; readonly path: string };

/** Options for {@link validateCwd}. */
export interface CwdOptions {
  /** Absolute workspace root inside the sandbox. Default: `/workspace`. */
  readonly root?: string;
  /** Provider to name in errors. */
  readonly provider?: string;
}

/**
 * Validates a request's `cwd`. A relative path is workspace-relative, as
 * before; an absolute one may name any directory of the sandbox, and names
 * the workspace (kind `"workspace"`) when it lies at or under the root once
 * normalised. Whatever its form, `..` segments, NUL and control characters,
 * backslashes and escapes hidden behind percent-encoding are refused with
 * `INVALID_REQUEST`, before any provider call. Whether the directory exists
 * is for the runtime to find out (`NOT_FOUND`, see `missingCwd`).
 */
export function validateCwd(input: unknown, options: CwdOptions = {}): CommandCwd {
  const { provider } = options;
  const root = options.root ?? "/workspace";
  if (typeof input === "string" && input.startsWith("/")) {
    const absolute = normalizeSandboxPath(input, { field: "cwd", provider });
    const base = root.length > 1 ? root.replace(/\/+$/, "") : root;
    if (base === "/") return { kind: "workspace", path: absolute.slice(1) };
    if (absolute === base || absolute.startsWith(`${base}/`)) {
      const path = normalizeWorkspacePath(absolute, { root: base, allowRoot: true, field: "cwd", provider });
      return { kind: "workspace", path };
    }
    return { kind: "sandbox", path: absolute };
  }
  if (input === undefined) return { kind: "workspace", path: "" };
  if (typeof input !== "string")
    throw invalidRequest(`cwd ${JSON.stringify(input)} must be a string`, { field: "cwd" }, provider);
  return { kind: "workspace", path: normalizeWorkspacePath(input, { root, allowRoot: true, field: "cwd", provider }) };
}
