import { posix } from "node:path";
import type { OptionReader } from "@sandport/core/adapter";

/**
 * Host directories where daemons keep their Unix sockets. A read-only bind
 * does not stop `connect()` on a socket (the kernel exempts sockets from the
 * read-only mount check), so mounting one of these would hand the sandbox the
 * host's daemons (D-Bus, systemd, a container engine) wherever the socket's
 * mode lets the sandbox user connect.
 */
const SOCKET_DIRECTORIES = ["/run", "/var/run"];

/**
 * Refuses (`INVALID_REQUEST`, naming the entry and what to do instead) a
 * `readOnlyPaths` entry that cannot work or would expose the host: `/`; one
 * at, under or above the sandbox's own `/tmp` (the workspace's `.tmp` is
 * bound there after the entries, hiding them) or the workspace root (bound
 * over them; an ancestor cannot take the workspace's mount point, being
 * read-only); and one at, under or above a host socket directory
 * ({@link SOCKET_DIRECTORIES}). Pure: a socket elsewhere inside an entry is
 * not looked for (see the package README).
 */
export function checkReadOnlyPath(read: OptionReader, path: string, workspaceRoot: string): string {
  const refuse = (why: string) => read.refuse("readOnlyPaths", `entry ${JSON.stringify(path)} ${why}`);
  const normalized = posix.normalize(path);
  const overlaps = (directory: string) =>
    normalized === directory || normalized.startsWith(`${directory}/`) || directory.startsWith(`${normalized}/`);
  if (normalized === "/") throw refuse("would mount the whole host: name the directories commands need");
  if (overlaps("/tmp")) {
    throw refuse(
      "overlaps /tmp, which inside the sandbox is its own (the workspace's .tmp) and hides it: " +
        "move what commands need out of /tmp, or write it into the workspace with writeFiles",
    );
  }
  if (overlaps(workspaceRoot)) {
    throw refuse(
      `overlaps the workspace root ${workspaceRoot}, which is bound read-write over it: ` +
        "write what commands need into the workspace with writeFiles, or choose another workspaceRoot",
    );
  }
  const sockets = SOCKET_DIRECTORIES.find(overlaps);
  if (sockets !== undefined) {
    throw refuse(
      `overlaps ${sockets}, where host daemons keep Unix sockets that a read-only mount still lets ` +
        "commands connect() to: mount only the files commands need",
    );
  }
  return path;
}
