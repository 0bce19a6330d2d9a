import { invalidRequest } from "../errors/factories.js";

/** Options for {@link normalizeWorkspacePath}. */
export interface WorkspacePathOptions {
  /**
   * Absolute path of the workspace inside the sandbox (e.g. `/workspace`).
   * An absolute input is accepted only at or under it. Default: `/workspace`.
   */
  readonly root?: string;
  /** Accept the workspace root itself (`.`, `""` after normalising). Default: `false`. */
  readonly allowRoot?: boolean;
  /** Name of the field being checked, for the error message. Default: `path`. */
  readonly field?: string;
  /** Provider to name in the error. */
  readonly provider?: string;
}

// C0 controls and DEL: legal in POSIX names but a hazard in every shell and log.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;
const MAX_PATH_LENGTH = 4096;

/**
 * Turns a caller's path into a workspace-relative POSIX path (`a/b.txt`, or
 * `""` for the root when allowed), refusing anything that could escape:
 * `..` segments, absolute paths outside the root, NUL and control characters,
 * backslashes, and any of these hidden behind percent-encoding. Throws
 * `INVALID_REQUEST` before any provider call.
 *
 * Symlinks cannot be judged from the string; runtimes that can see the
 * filesystem check them separately.
 */
export function normalizeWorkspacePath(input: unknown, options: WorkspacePathOptions = {}): string {
  const field = options.field ?? "path";
  const root = trimTrailingSlashes(options.root ?? "/workspace");
  const refuse = (why: string) =>
    invalidRequest(`${field} ${JSON.stringify(input)} ${why}`, { field }, options.provider);

  if (typeof input !== "string") throw refuse("must be a string");
  refuseUnsafeCharacters(input, refuse, false);

  let relative = input;
  if (input.startsWith("/")) {
    if (input === root || input === `${root}/`) relative = "";
    else if (input.startsWith(`${root}/`)) relative = input.slice(root.length + 1);
    else throw refuse(`is absolute and outside the workspace ${root}`);
  }
  const segments = relative.split("/").filter((segment) => segment !== "" && segment !== ".");
  if (segments.includes("..")) throw refuse("contains a '..' segment");
  const normalized = segments.join("/");
  if (normalized === "" && !options.allowRoot) throw refuse("names the workspace root, not a file");
  return normalized;
}

/** Options for {@link normalizeSandboxPath}. */
export interface SandboxPathOptions {
  /** Name of the field being checked, for the error message. Default: `path`. */
  readonly field?: string;
  /** Provider to name in the error. */
  readonly provider?: string;
}

/**
 * Turns an absolute path anywhere in the sandbox into its normal form (`/`,
 * `/tmp/a`: single slashes, no `.` segments, no trailing slash), refusing a
 * relative path, `..` segments, NUL and control characters, backslashes, and
 * a `..` hidden behind percent-encoding. Throws `INVALID_REQUEST`.
 */
export function normalizeSandboxPath(input: unknown, options: SandboxPathOptions = {}): string {
  const field = options.field ?? "path";
  const refuse = (why: string) =>
    invalidRequest(`${field} ${JSON.stringify(input)} ${why}`, { field }, options.provider);
  if (typeof input !== "string") throw refuse("must be a string");
  if (!input.startsWith("/")) throw refuse("must be absolute");
  refuseUnsafeCharacters(input, refuse, true);
  const segments = input.split("/").filter((segment) => segment !== "" && segment !== ".");
  if (segments.includes("..")) throw refuse("contains a '..' segment");
  return `/${segments.join("/")}`;
}

/**
 * Refuses what no path may hold, in the input or in up to three rounds of
 * percent-decoding of it: NUL and control characters, backslashes, and (in a
 * decoded form only) a `..` segment, or, for a path that must stay relative,
 * a leading `/`.
 */
function refuseUnsafeCharacters(input: string, refuse: (why: string) => Error, absolute: boolean): void {
  if (input.length > MAX_PATH_LENGTH) throw refuse(`is longer than ${MAX_PATH_LENGTH} characters`);
  for (const variant of decodedVariants(input)) {
    if (variant.includes("\u0000")) throw refuse("contains a NUL byte");
    if (CONTROL_CHARACTERS.test(variant)) throw refuse("contains a control character");
    if (variant.includes("\\")) throw refuse("contains a backslash");
    if (variant !== input && (variant.split("/").includes("..") || (!absolute && variant.startsWith("/")))) {
      throw refuse("hides a path escape behind percent-encoding");
    }
  }
}

/** Joins a normalised relative path onto the sandbox root, giving the absolute in-sandbox path. */
export function toSandboxPath(root: string, relative: string): string {
  const base = trimTrailingSlashes(root);
  return relative === "" ? base || "/" : `${base}/${relative}`;
}

function trimTrailingSlashes(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, "") : path;
}

/** The input and up to three rounds of percent-decoding of it (double-encoding included). */
function decodedVariants(input: string): string[] {
  const variants = [input];
  let current = input;
  for (let round = 0; round < 3 && current.includes("%"); round++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      break; // a lone '%' is a legal file name character, not an encoding
    }
    if (next === current) break;
    variants.push(next);
    current = next;
  }
  return variants;
}
