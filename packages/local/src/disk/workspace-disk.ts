import { execFile } from "node:child_process";
import { accessSync, constants, existsSync, type StatsFs, statSync } from "node:fs";
import { chmod, mkdir, open, readdir, readFile, statfs } from "node:fs/promises";
import { join } from "node:path";
import { sleep, unsupported } from "@sandport/core";
import { LOCAL_PROVIDER } from "../options.js";
import { DISK_TOOL_PATHS, type DiskTools } from "./disk-support.js";
import { detachForeignCopies } from "./foreign-copies.js";

/** Name of the sparse ext4 image inside a sandbox directory (outside the workspace). */
export const DISK_IMAGE = "disk.img";
/** Name of the directory inside a sandbox directory where the image is mounted; the workspace is inside it. */
export const DISK_MOUNT = "disk";
/** The smallest bound a workspace can have: below it ext4's own structures leave next to nothing. */
export const MIN_DISK_MIB = 8;
/** How long an unmount waits for the kernel to let go of the image's loop device. */
const LOOP_RELEASE_MS = 5_000;
/** How long after the unmount a loop device still held sends the search for copies in other mount namespaces. */
const FOREIGN_COPY_WAIT_MS = 200;
/**
 * How long an unmount refused as busy is tried again: a file another runtime
 * instance is writing or reading there at that moment, or a killed command's
 * working directory, lets go within milliseconds. A file held open longer
 * keeps the destroy from finishing.
 */
const BUSY_RETRY_MS = 2_000;

/** The image's size for `diskMiB`: whole 4 KiB blocks, never more than asked. */
export function diskBytes(diskMiB: number): number {
  return Math.floor((diskMiB * 1024 * 1024) / 4096) * 4096;
}

/**
 * Makes a bounded workspace's file system in `sandboxDirectory`: a sparse
 * image of `bytes` (disk space is used only as files are written; refused
 * `UNSUPPORTED` when the host file system has less free space than that
 * now, which is checked, not reserved), formatted
 * ext4 without blocks reserved for root, and mounted on `disk/` through a
 * loop device that clears itself at unmount. The workspace and the trash
 * (where removed trees are taken apart, which must be the same file system)
 * are then directories inside it. On failure whatever was mounted is
 * unmounted; the files are the caller's to remove.
 */
export async function makeWorkspaceDisk(tools: DiskTools, sandboxDirectory: string, bytes: number): Promise<void> {
  // Sparse, so nothing is reserved: a bound the host cannot hold now would fail as host I/O errors, not ENOSPC.
  const host = await statfs(sandboxDirectory);
  const free = host.bavail * host.bsize;
  if (free < bytes) {
    throw unsupported(
      LOCAL_PROVIDER,
      "resources.diskMiB larger than the free space under the sandbox root",
      `the host file system holding the root has ${Math.floor(free / 1048576)} MiB free, less than the bound`,
    );
  }
  const image = join(sandboxDirectory, DISK_IMAGE);
  const handle = await open(image, "wx", 0o600);
  try {
    await handle.truncate(bytes);
  } finally {
    await handle.close();
  }
  // Lazy inode table and journal initialisation: formatting writes a few hundred KiB, whatever the size.
  await run(tools.mkfs, ["-q", "-F", "-m", "0", "-E", "lazy_itable_init=1,lazy_journal_init=1", image]);
  await mkdir(join(sandboxDirectory, DISK_MOUNT), { mode: 0o711 });
  await mountWorkspaceDisk(tools, sandboxDirectory);
  try {
    // The file system's root: the sandbox user passes through it to the workspace (0700, theirs) and lists nothing.
    await chmod(join(sandboxDirectory, DISK_MOUNT), 0o711);
  } catch (error) {
    await unmountWorkspaceDisk(sandboxDirectory, tools).catch(() => {});
    throw error;
  }
}

/** Mounts the image of `sandboxDirectory` on its `disk/` (`nosuid`, `nodev`). */
export async function mountWorkspaceDisk(tools: DiskTools, sandboxDirectory: string): Promise<void> {
  const options = "loop,nosuid,nodev,noatime";
  await run(tools.mount, [
    "-t",
    "ext4",
    "-o",
    options,
    join(sandboxDirectory, DISK_IMAGE),
    diskMount(sandboxDirectory),
  ]);
}

/**
 * Whether `sandboxDirectory/disk` is a mount point now: it lies on another
 * device than the sandbox directory. `false` when either is missing.
 */
export function diskMounted(sandboxDirectory: string): boolean {
  try {
    return statSync(diskMount(sandboxDirectory)).dev !== statSync(sandboxDirectory).dev;
  } catch {
    return false;
  }
}

/**
 * Unmounts the bounded workspace of `sandboxDirectory`, if mounted, and
 * proves it: nothing is mounted on `disk/` any more in this process's mount
 * table, and no loop device is backed by the image (the kernel may release
 * one a moment after the unmount: waited for; one still held after
 * {@link FOREIGN_COPY_WAIT_MS} has its mount's copies in other mount
 * namespaces detached, see `detachForeignCopies`). Rejects, saying what is left,
 * when it cannot (a process outside the sandbox holding a file open there
 * keeps it busy). Resolves at once when nothing is mounted and no loop
 * device holds the image.
 */
export async function unmountWorkspaceDisk(sandboxDirectory: string, tools?: DiskTools): Promise<void> {
  const mountPoint = diskMount(sandboxDirectory);
  const image = join(sandboxDirectory, DISK_IMAGE);
  const onDevice = diskMounted(sandboxDirectory);
  // A sandbox without a bound (no image) costs two stat calls, not a read of the mount table.
  if (!onDevice && !existsSync(image)) return;
  if (onDevice || (await mountedAt(mountPoint))) {
    const umount = tools?.umount ?? firstExecutable(DISK_TOOL_PATHS.umount);
    if (umount === undefined) throw new Error(`cannot unmount ${mountPoint}: umount is not installed`);
    await unmountWhenFree(umount, mountPoint);
    if (await mountedAt(mountPoint)) throw new Error(`${mountPoint} is still mounted after umount`);
  }
  const started = performance.now();
  let detachedCopies = false;
  for (let round = 0; ; round++) {
    const devices = await loopDevicesOf(image);
    if (devices.length === 0) return;
    // Still held a moment after the unmount: another mount namespace may keep a copy of the mount.
    if (!detachedCopies && performance.now() - started > FOREIGN_COPY_WAIT_MS) {
      detachedCopies = true;
      await detachForeignCopies(devices);
    }
    if (performance.now() - started > LOOP_RELEASE_MS) {
      throw new Error(`loop device ${devices.join(", ")} still holds ${image} after the unmount`);
    }
    await sleep(round < 10 ? 5 : 50);
  }
}

/**
 * Whether the workspace's file system is full: the command that just failed
 * most likely failed writing. Full means no free inode, or less free space
 * than `min(2 MiB, an eighth of the file system)`: ext4 refuses a write it
 * cannot reserve room for as a whole, so a failed large write leaves up to
 * about its own size free (measured: 0-3 KiB after 4 KiB writes, ~420 KiB
 * after 1 MiB writes, ~1.4 MiB after 8 MiB writes). `false` when the file
 * system cannot be read.
 */
export async function diskFull(workspaceDirectory: string): Promise<boolean> {
  try {
    return fullByStatistics(await statfs(workspaceDirectory));
  } catch {
    return false;
  }
}

/** What {@link fullByStatistics} reads of a `statfs` result. */
export type FileSystemStatistics = Pick<StatsFs, "bsize" | "blocks" | "bavail" | "files" | "ffree">;

/** {@link diskFull}'s rule, on a `statfs` result taken elsewhere (an async command's supervisor records one). */
export function fullByStatistics(stats: FileSystemStatistics): boolean {
  const slack = Math.min(2 * 1024 * 1024, (stats.blocks * stats.bsize) / 8);
  return (stats.files > 0 && stats.ffree === 0) || stats.bavail * stats.bsize < slack;
}

/** Whether this process's mount table has something mounted on `path`. */
export async function mountedAt(path: string): Promise<boolean> {
  const table = await readFile("/proc/self/mountinfo", "utf8").catch(() => "");
  return table.split("\n").some((line) => decodeMountField(line.split(" ")[4] ?? "") === path);
}

/** Loop devices (`/dev/loopN`) whose backing file is `image`, from `/sys/block`. */
export async function loopDevicesOf(image: string): Promise<string[]> {
  const names = await readdir("/sys/block").catch(() => [] as string[]);
  const found: string[] = [];
  for (const name of names.filter((entry) => entry.startsWith("loop"))) {
    const backing = await readFile(join("/sys/block", name, "loop", "backing_file"), "utf8").catch(() => "");
    const path = backing.trim().replace(/ \(deleted\)$/, "");
    if (path === image) found.push(`/dev/${name}`);
  }
  return found;
}

function diskMount(sandboxDirectory: string): string {
  return join(sandboxDirectory, DISK_MOUNT);
}

/** mountinfo escapes space, tab, newline and backslash as octal. */
function decodeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

function firstExecutable(candidates: readonly string[]): string | undefined {
  return candidates.find((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Unmounts `mountPoint`, trying again for {@link BUSY_RETRY_MS} while the kernel says it is busy. */
async function unmountWhenFree(umount: string, mountPoint: string): Promise<void> {
  const started = performance.now();
  for (;;) {
    try {
      return await run(umount, [mountPoint]);
    } catch (error) {
      const busy = /target is busy/.test((error as Error).message);
      if (!busy || performance.now() - started > BUSY_RETRY_MS) throw error;
      await sleep(25);
    }
  }
}

/** Runs a program with an empty environment; rejects with its stderr when it fails. */
function run(file: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { env: {}, timeout: 60_000 }, (error, _stdout, stderr) => {
      if (!error) return resolve();
      const said = String(stderr).trim();
      reject(new Error(`${[file, ...args].join(" ")} failed: ${said || error.message}`, { cause: error }));
    });
  });
}
