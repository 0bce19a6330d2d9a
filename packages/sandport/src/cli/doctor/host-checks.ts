import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import { userInfo } from "node:os";
import { satisfiesNodeRange } from "@sandport/core/adapter";
import type { DoctorCheck } from "./check.js";

/** Reads a small /proc or /sys file, trimmed, or `undefined` when it does not exist. */
export type ReadSystemFile = (path: string) => string | undefined;

const readSystemFile: ReadSystemFile = (path) => {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return undefined;
  }
};

/** This Node against the floor the package declares (`engines.node`). */
export function nodeCheck(floor: string): DoctorCheck {
  const version = process.versions.node;
  if (satisfiesNodeRange(version, floor))
    return { scope: "host", name: "node", status: "ok", detail: `Node ${version}` };
  return {
    scope: "host",
    name: "node",
    status: "fail",
    detail: `Node ${version} does not satisfy ${floor}`,
    fix: `install Node ${floor}`,
  };
}

/** Who we run as, and what running as root means for isolated local commands. */
export function userCheck(): DoctorCheck {
  const uid = process.getuid?.();
  if (uid === 0) {
    return {
      scope: "host",
      name: "user",
      status: "info",
      detail:
        "running as root: each sandbox's isolated local commands run as an unprivileged uid of its own (from " +
        "2000000000 up, recorded in /var/lib/sandport/uids), sandboxes live under /var/lib/sandport/local unless " +
        "--option root=DIR says otherwise, and those uids must be able to pass through the root's parents",
    };
  }
  const name = uid === undefined ? "this user" : `${userInfo().username} (uid ${uid})`;
  return { scope: "host", name: "user", status: "info", detail: `running as ${name}: commands run as this user` };
}

/** Whether unprivileged user namespaces (what bubblewrap needs) are allowed. */
export function userNamespaceCheck(read: ReadSystemFile = readSystemFile): DoctorCheck {
  const check = (status: DoctorCheck["status"], detail: string, fix?: string): DoctorCheck => ({
    scope: "host",
    name: "user namespaces",
    status,
    detail,
    ...(fix === undefined ? {} : { fix }),
  });
  if (process.platform !== "linux") return check("fail", `${process.platform} has no Linux namespaces`);
  if (read("/proc/sys/kernel/unprivileged_userns_clone") === "0") {
    return check(
      "fail",
      "disabled (kernel.unprivileged_userns_clone = 0)",
      "sysctl -w kernel.unprivileged_userns_clone=1",
    );
  }
  if (read("/proc/sys/user/max_user_namespaces") === "0") {
    return check("fail", "disabled (user.max_user_namespaces = 0)", "sysctl -w user.max_user_namespaces=15000");
  }
  if (read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") === "1") {
    return check(
      "warn",
      "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1)",
      "give bwrap an AppArmor profile that allows userns, or sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
    );
  }
  return check("ok", "allowed");
}

/** Which cgroup controllers exist and whether this process may create cgroups (resource limits need it). */
export function cgroupCheck(read: ReadSystemFile = readSystemFile): DoctorCheck {
  const controllers = read("/sys/fs/cgroup/cgroup.controllers");
  if (controllers === undefined) {
    return {
      scope: "host",
      name: "cgroups",
      status: "warn",
      detail: "no cgroup v2 hierarchy at /sys/fs/cgroup: the local runtime refuses resource limits",
      fix: "run on a cgroup v2 host (systemd's default) to enforce memory, CPU and process limits",
    };
  }
  const writable = canAccess("/sys/fs/cgroup", constants.W_OK);
  return {
    scope: "host",
    name: "cgroups",
    status: "info",
    detail: `cgroup v2 controllers: ${controllers || "none"}; /sys/fs/cgroup ${writable ? "writable" : "read-only here (limits need a delegated subtree)"}`,
  };
}

/** Whether /dev/kvm exists and this user may open it (microVM runtimes on this machine need it). */
export function kvmCheck(): DoctorCheck {
  if (!existsSync("/dev/kvm")) {
    return { scope: "host", name: "/dev/kvm", status: "info", detail: "absent: microVMs cannot run on this machine" };
  }
  if (canAccess("/dev/kvm", constants.R_OK | constants.W_OK)) {
    return { scope: "host", name: "/dev/kvm", status: "ok", detail: "present and usable" };
  }
  return {
    scope: "host",
    name: "/dev/kvm",
    status: "warn",
    detail: "present but not usable by this user",
    fix: "add the user to the kvm group (usermod -aG kvm $USER) and log in again",
  };
}

function canAccess(path: string, mode: number): boolean {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
}
