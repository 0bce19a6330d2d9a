import type { ProcessIdentity } from "../processes/process-tree.js";

/** What a uid marker says: the sandbox that holds the uid and, when known, who took it for it. */
export interface UidMarker {
  readonly sandboxId: string;
  /** The sandbox root the launch was made in, as that runtime named it. */
  readonly root: string;
  /** The launching process (pid and start time, safe against pid reuse). */
  readonly launcher: ProcessIdentity;
}

// As `SandboxStore.checkId` accepts: one path component, no line break.
const ID_LINE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
const NUMBER_LINE = /^\d+$/;

/**
 * The text of a uid marker (see `UidPool`): four lines, the sandbox id, the
 * sandbox root, and the launching process's pid and start time. Where the
 * process cannot be identified (not Linux) or the root holds a line break,
 * only the id, as markers of earlier versions: such a marker is never
 * reclaimed, only given back.
 */
export function markerText(sandboxId: string, root: string, launcher: ProcessIdentity | undefined): string {
  if (launcher === undefined || root.includes("\n")) return `${sandboxId}\n`;
  return `${sandboxId}\n${root}\n${launcher.pid}\n${launcher.startTime}\n`;
}

/** The sandbox id a marker's text names first (whatever its format); `""` when none. */
export function markerHolder(text: string): string {
  return (text.split("\n")[0] ?? "").trim();
}

/** A marker's text in the four-line form {@link markerText} writes; `undefined` for any other (an id only, or garbage). */
export function parseMarker(text: string): UidMarker | undefined {
  const lines = text.split("\n");
  if (lines.length !== 5 || lines[4] !== "") return undefined;
  const [sandboxId, root, pid, startTime] = lines as [string, string, string, string];
  if (!ID_LINE.test(sandboxId) || !root.startsWith("/") || !NUMBER_LINE.test(pid) || !NUMBER_LINE.test(startTime)) {
    return undefined;
  }
  return { sandboxId, root, launcher: { pid: Number(pid), startTime } };
}
