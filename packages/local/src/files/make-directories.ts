import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * Creates `path` and every missing parent, one level at a time, each with
 * `mode`; resolves to the first directory it created (`undefined` when `path`
 * already existed), as `mkdir(path, { recursive: true })` does.
 *
 * Why not that call: Node's recursive `mkdir` never settles where a parent
 * cannot be made and says `ENOENT` (a path under `/proc`), and keeps a
 * thread-pool thread spinning after the caller gave up. Here every level is
 * one plain `mkdir`, so such a path fails with that level's error.
 */
export async function makeDirectories(path: string, mode: number): Promise<string | undefined> {
  // Missing levels below the first one that exists or could be made, top down.
  const missing: string[] = [];
  let first: string | undefined;
  for (let directory = path; ; directory = dirname(directory)) {
    try {
      await mkdir(directory, { mode });
      first = directory;
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EEXIST") {
        if (directory === path) return undefined;
        break;
      }
      // A missing parent is made first; at the filesystem root there is none left to make.
      if (code !== "ENOENT" || dirname(directory) === directory) throw error;
      missing.unshift(directory);
    }
  }
  for (const directory of missing) {
    try {
      await mkdir(directory, { mode });
    } catch (error) {
      // Made meanwhile by another caller: fine, as for a recursive mkdir.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  return first ?? missing[0];
}
