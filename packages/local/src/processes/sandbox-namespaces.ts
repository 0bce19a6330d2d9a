import { spawn } from "node:child_process";
import { closeSync, openSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { SandportError, sleep } from "@sandport/core";
import { LOCAL_PROVIDER, type SandboxUser } from "../options.js";
import { identify, isAlive, type ProcessIdentity, signalProcess } from "./process-tree.js";

/** Where `nsenter` and `unshare` (util-linux) are expected: commands enter a sandbox's namespaces through them. */
export const NSENTER_PATH = "/usr/bin/nsenter";
/** See {@link NSENTER_PATH}: the user namespace every namespace of a sandbox belongs to is made with it. */
export const UNSHARE_PATH = "/usr/bin/unshare";

/**
 * The process that keeps a sandbox's namespaces alive under
 * `namespaceScope: "sandbox"`: the init of its PID namespace, recorded with
 * its start time (a reused pid is never mistaken for it) and the PID
 * namespace's name (`pid:[<inode>]`), by which the sandbox's processes are
 * counted.
 */
export interface NamespaceHolder extends ProcessIdentity {
  readonly pidNamespace: string;
}

/**
 * The namespaces a command joins, as file descriptors a spawn passes on at
 * fixed numbers (see {@link NAMESPACE_DESCRIPTORS}), and how to close them in
 * this process once the child has its copies.
 */
export interface OpenNamespaces {
  /** Descriptors in the order of {@link NAMESPACE_DESCRIPTORS} (`net` last, absent with network). */
  readonly descriptors: readonly number[];
  close(): void;
}

/** The namespaces a command joins, and the descriptor each one has in the spawned process (after bubblewrap's `--args 3`). */
export const NAMESPACE_DESCRIPTORS = { user: 4, pid: 5, ipc: 6, uts: 7, net: 8 } as const;

/** What a holder is started with. */
export interface HolderInput {
  readonly bwrapPath: string;
  /** The sandbox user: it owns the user namespace and is, with root, the only uid mapped into it. */
  readonly user: SandboxUser;
  /** Keep the host's network namespace (the sandbox was launched with `network: true`). */
  readonly network: boolean;
  /**
   * The sandbox's cgroup name (`sandboxCgroupName`: its id, its launching process, its root): carried in the
   * holder's environment as {@link HOLDER_VARIABLE}, so that a runtime over the same root can find the holder of
   * a launch killed before its record existed (see `reclaimHolders`).
   */
  readonly tag: string;
}

/** The variable in a namespace holder's own environment (not its program's: that starts empty) naming its launch. */
export const HOLDER_VARIABLE = "SANDPORT_NAMESPACE_HOLDER";

/**
 * Starts the namespaces of one sandbox and returns their holder. Needs root.
 *
 * 1. A user namespace owned by the sandbox user (made by `unshare --user` run
 *    as that user; its maps written from here, as root: root and the sandbox
 *    user map to themselves), in which nested user namespaces are then
 *    disabled (`user.max_user_namespaces = 0`, written from inside by root,
 *    which the root mapping lets keep its capabilities there). bubblewrap's own
 *    `--disable-userns` needs a user namespace it creates, and one it creates
 *    cannot be joined from outside.
 * 2. The holder: bubblewrap run as the sandbox user in that user namespace,
 *    with new PID, IPC, UTS and (unless `network`) network namespaces (it
 *    brings up `lo`), all capabilities dropped, running `sleep infinity`
 *    under bubblewrap's init, which is the PID namespace's init and reaps
 *    orphans. It is detached: it outlives this process, as the sandbox does.
 *
 * Each command later joins these namespaces (see `planCommand`); killing the
 * init kills every process in the PID namespace.
 */
export async function startNamespaceHolder(input: HolderInput): Promise<NamespaceHolder> {
  const keeper = spawn(UNSHARE_PATH, ["--user", "--", "/bin/sh", "-c", "echo; exec cat"], {
    stdio: ["pipe", "pipe", "pipe"],
    env: {},
    cwd: "/",
    uid: input.user.uid,
    gid: input.user.gid,
  });
  let keeperError = "";
  keeper.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    keeperError += chunk;
  });
  try {
    await new Promise<void>((resolve, reject) => {
      keeper.once("error", reject);
      keeper.stdout.once("data", () => resolve());
      keeper.once("close", (code) =>
        reject(new Error(`${UNSHARE_PATH} --user exited (${code}): ${keeperError.trim()}`)),
      );
    });
    const pid = keeper.pid as number;
    const { uid, gid } = input.user;
    writeFileSync(`/proc/${pid}/uid_map`, `0 0 1\n${uid} ${uid} 1\n`);
    writeFileSync(`/proc/${pid}/gid_map`, `0 0 1\n${gid} ${gid} 1\n`);
    await run(NSENTER_PATH, [
      "--preserve-credentials",
      `--user=/proc/${pid}/ns/user`,
      "--",
      "/bin/sh",
      "-c",
      "echo 0 > /proc/sys/user/max_user_namespaces",
    ]);
    const userNamespace = openSync(`/proc/${pid}/ns/user`, "r");
    try {
      return await startHolder(input, userNamespace);
    } finally {
      closeSync(userNamespace);
    }
  } finally {
    keeper.stdin.end();
    keeper.kill("SIGKILL");
  }
}

async function startHolder(input: HolderInput, userNamespace: number): Promise<NamespaceHolder> {
  const args = ["--userns", "3", "--unshare-pid", "--unshare-ipc", "--unshare-uts"];
  if (!input.network) args.push("--unshare-net");
  args.push("--assert-userns-disabled", "--cap-drop", "ALL", "--new-session", "--clearenv");
  args.push("--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib");
  args.push("--symlink", "usr/lib64", "/lib64", "--info-fd", "4", "--", "/usr/bin/sleep", "infinity");
  const holder = spawn(input.bwrapPath, args, {
    stdio: ["ignore", "ignore", "pipe", userNamespace, "pipe"],
    env: { [HOLDER_VARIABLE]: input.tag },
    cwd: "/",
    detached: true,
    uid: input.user.uid,
    gid: input.user.gid,
  });
  let stderr = "";
  let info = "";
  holder.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const infoStream = holder.stdio[4] as NodeJS.ReadableStream;
  infoStream.setEncoding("utf8");
  infoStream.on("data", (chunk: string) => {
    info += chunk;
  });
  const childPid = await new Promise<number>((resolve, reject) => {
    holder.once("error", reject);
    holder.once("exit", (code, signal) =>
      reject(new Error(`bubblewrap exited (${signal ?? code}) before the namespaces were made: ${stderr.trim()}`)),
    );
    infoStream.once("end", () => {
      const pid = /"child-pid":\s*(\d+)/.exec(info)?.[1];
      if (pid === undefined) reject(new Error(`bubblewrap reported no child pid: ${stderr.trim()}`));
      else resolve(Number(pid));
    });
  });
  holder.removeAllListeners("exit");
  holder.stderr?.destroy();
  holder.unref();
  const identity = identify(childPid);
  if (!identity) throw new Error(`the namespace holder ${childPid} exited at once: ${stderr.trim()}`);
  return { ...identity, pidNamespace: readlinkSync(`/proc/${childPid}/ns/pid`) };
}

/**
 * Opens the namespaces of a sandbox's holder for one command (`user`, `pid`,
 * `ipc`, `uts`, and `net` unless the sandbox has network), proving after the
 * opens that the holder is still the recorded process. A holder that is gone
 * is `NOT_FOUND`: the sandbox's processes and loopback are gone with it (the
 * machine rebooted, or something killed it); destroy the sandbox.
 */
export function openNamespaces(sandboxId: string, holder: NamespaceHolder, network: boolean): OpenNamespaces {
  const names = network ? (["user", "pid", "ipc", "uts"] as const) : (["user", "pid", "ipc", "uts", "net"] as const);
  const descriptors: number[] = [];
  const close = () => {
    for (const descriptor of descriptors.splice(0)) closeSync(descriptor);
  };
  try {
    for (const name of names) descriptors.push(openSync(`/proc/${holder.pid}/ns/${name}`, "r"));
  } catch {
    close();
    throw holderGone(sandboxId, holder);
  }
  if (!isAlive(holder)) {
    close();
    throw holderGone(sandboxId, holder);
  }
  return { descriptors, close };
}

function holderGone(sandboxId: string, holder: NamespaceHolder): SandportError {
  return new SandportError({
    code: "NOT_FOUND",
    provider: LOCAL_PROVIDER,
    message:
      `the namespaces of sandbox ${sandboxId} are gone (their holder, process ${holder.pid}, has exited, ` +
      "and every process of the sandbox with it): destroy the sandbox and launch another",
    details: { sandboxId, holder: holder.pid },
  });
}

/** Host pids of the live processes in the PID namespace named `pidNamespace` (`pid:[<inode>]`). */
export function processesInNamespace(pidNamespace: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readlinkSync(`/proc/${name}/ns/pid`) === pidNamespace) found.push(Number(name));
    } catch {
      // Exited while we looked.
    }
  }
  return found;
}

/**
 * SIGKILLs the holder, the init of the sandbox's PID namespace, whereupon
 * the kernel kills every process in it, and waits until a scan of `/proc`
 * finds none left in that namespace (`true`), or `timeoutMs` passes
 * (`false`). A holder already gone is not an error: the scan decides.
 */
export async function killNamespaceHolder(holder: NamespaceHolder, timeoutMs: number): Promise<boolean> {
  if (isAlive(holder)) signalProcess(holder.pid, "SIGKILL");
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = processesInNamespace(holder.pidNamespace);
    if (left.length === 0) return true;
    if (Date.now() > deadline) return false;
    // The kernel kills them: what is left is on its way out (or a zombie not yet reaped by bubblewrap).
    await sleep(10);
  }
}

function run(file: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    let stderr = "";
    const child = spawn(file, args, { stdio: ["ignore", "ignore", "pipe"], env: {}, cwd: "/" });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`${file} ${args.join(" ")} failed (${code}): ${stderr.trim()}`)),
    );
  });
}
