import { accessSync, constants, readFileSync } from "node:fs";

/** Whether this process can give workspaces a disk bound, and with which programs; when not, why. */
export type DiskSupport =
  | { readonly ok: true; readonly tools: DiskTools }
  | { readonly ok: false; readonly reason: string };

/** The util-linux and e2fsprogs programs a bounded workspace is made and removed with. */
export interface DiskTools {
  /** `mkfs.ext4`: formats the image. */
  readonly mkfs: string;
  /** `mount`: attaches the image to a loop device (`-o loop`) and mounts it. */
  readonly mount: string;
  /** `umount`: unmounts it; the loop device, set to clear itself, goes with it. */
  readonly umount: string;
}

/** What {@link judgeDiskSupport} decides from. */
export interface DiskFacts {
  /** `process.platform`. */
  readonly platform: string;
  /** The effective user id (`process.getuid()`), `undefined` off POSIX. */
  readonly uid: number | undefined;
  /** `/proc/self/status` (its `CapEff` line says whether this process holds `CAP_SYS_ADMIN`). */
  readonly status: string;
  /** `/proc/self/uid_map`: the whole id range mapped to itself only in the host's own user namespace. */
  readonly uidMap: string;
  /** Whether `path` can be opened for reading and writing (`/dev/loop-control`). */
  readonly readWrite: (path: string) => boolean;
  /** Whether `path` is an executable file. */
  readonly executable: (path: string) => boolean;
}

/** Where each program is looked for, in order: fixed places, never `PATH` (nothing ambient). */
export const DISK_TOOL_PATHS: Readonly<Record<keyof DiskTools, readonly string[]>> = {
  mkfs: ["/usr/sbin/mkfs.ext4", "/sbin/mkfs.ext4", "/usr/bin/mkfs.ext4"],
  mount: ["/usr/bin/mount", "/bin/mount", "/usr/sbin/mount", "/sbin/mount"],
  umount: ["/usr/bin/umount", "/bin/umount", "/usr/sbin/umount", "/sbin/umount"],
};

/** The loop device allocator a loop mount asks for a free device. */
const LOOP_CONTROL = "/dev/loop-control";
/** Bit of `CAP_SYS_ADMIN` in `CapEff`: mounting needs it. */
const CAP_SYS_ADMIN = 21n;

/**
 * Decides, without creating anything, whether this process can bound a
 * workspace with a loop-mounted ext4 image: Linux, root holding
 * `CAP_SYS_ADMIN` in the host's own user namespace (a user namespace's root
 * cannot mount ext4), a loop device allocator it may use, and `mkfs.ext4`,
 * `mount` and `umount` in their usual places. Pure, for tests;
 * {@link diskSupport} feeds it this process's facts.
 */
export function judgeDiskSupport(facts: DiskFacts): DiskSupport {
  if (facts.platform !== "linux") return { ok: false, reason: `loop mounts are Linux's; this is ${facts.platform}` };
  if (facts.uid !== 0) {
    return { ok: false, reason: `mounting a workspace image needs root; this process runs as uid ${facts.uid}` };
  }
  const capabilities = /^CapEff:\s*([0-9a-f]+)$/im.exec(facts.status)?.[1];
  if (capabilities === undefined || ((BigInt(`0x${capabilities}`) >> CAP_SYS_ADMIN) & 1n) === 0n) {
    return { ok: false, reason: "this process lacks CAP_SYS_ADMIN, which mounting needs" };
  }
  const [inside, outside, count] = facts.uidMap.trim().split(/\s+/);
  if (!(inside === "0" && outside === "0" && count === "4294967295")) {
    return {
      ok: false,
      reason: "this process runs in a user namespace of its own, whose root cannot mount an ext4 image",
    };
  }
  if (!facts.readWrite(LOOP_CONTROL)) {
    return { ok: false, reason: `no loop device can be had here (${LOOP_CONTROL} is missing or not usable)` };
  }
  const found: Partial<Record<keyof DiskTools, string>> = {};
  for (const [tool, candidates] of Object.entries(DISK_TOOL_PATHS) as [keyof DiskTools, readonly string[]][]) {
    const path = candidates.find((candidate) => facts.executable(candidate));
    if (path === undefined) {
      return {
        ok: false,
        reason: `${candidates[0]?.split("/").pop()} is not installed (looked in ${candidates.join(", ")})`,
      };
    }
    found[tool] = path;
  }
  return { ok: true, tools: found as DiskTools };
}

let support: DiskSupport | undefined;

/**
 * {@link judgeDiskSupport} for this process, decided once per process from
 * two small `/proc` files and a few `access` calls: a runtime declares
 * `diskLimit` at construction, before anything async can run.
 */
export function diskSupport(): DiskSupport {
  if (support) return support;
  const linux = process.platform === "linux";
  try {
    support = judgeDiskSupport({
      platform: process.platform,
      uid: process.getuid?.(),
      status: linux ? readFileSync("/proc/self/status", "utf8") : "",
      uidMap: linux ? readFileSync("/proc/self/uid_map", "utf8") : "",
      readWrite: (path) => canAccess(path, constants.R_OK | constants.W_OK),
      executable: (path) => canAccess(path, constants.X_OK),
    });
  } catch (error) {
    support = { ok: false, reason: `could not read this process's privileges: ${(error as Error).message}` };
  }
  return support;
}

function canAccess(path: string, mode: number): boolean {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
}
