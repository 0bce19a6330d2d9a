import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { invalidRequest } from "@sandport/core";
import { DISK_MOUNT } from "../disk/workspace-disk.js";
import { LOCAL_PROVIDER } from "../options.js";
import type { SandboxRecord } from "./sandbox-record.js";

/** Name of the workspace directory inside a sandbox directory. */
export const WORKSPACE = "workspace";
/** Name of the metadata file inside a sandbox directory. */
export const RECORD_FILE = "sandbox.json";
/** Name of the async-command area inside a sandbox directory (outside the workspace). */
const COMMANDS = "commands";
/** Name of the running-command markers directory inside a sandbox directory. */
export const RUNNING = "running";
/** Private directory inside a sandbox directory where removed workspace trees are taken apart. */
const TRASH = "trash";
/** A directory in the root with nothing ever mounted under it (see `SandboxStore.probeDirectory`). */
export const PROBE_DIRECTORY = ".isolation-probe";
/** Written when a destroy begins (see `SandboxStore.markDestroying`). */
export const DESTROYING = "destroying";
/** Directory inside a sandbox directory for exposed ports: the relay program and its Unix sockets. */
const PORTS = "ports";
/** Directory inside a sandbox directory for an allow list's egress relay and its proxies' sockets. */
const EGRESS = "egress";
/** Directory inside the workspace that `TMPDIR` points at. */
export const WORKSPACE_TMP = ".tmp";

/** What a sandbox id looks like: one path component, never `.`-led. */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** What locates a sandbox's workspace: its id, and whether it lives in a disk image (`SandboxRecord.disk`). */
export type WorkspaceOwner = Pick<SandboxRecord, "id" | "disk">;

/**
 * Where each part of a sandbox lives under the root: the names of a sandbox
 * directory's entries and the paths built from them. Paths only: nothing here
 * touches the disk (see `SandboxStore`, which keeps sandboxes there).
 */
export class SandboxLayout {
  /** Absolute root directory. */
  readonly root: string;

  /** @param root absolute directory holding one directory per sandbox */
  constructor(root: string) {
    this.root = root;
  }

  /** A fresh sandbox id. */
  static newId(): string {
    return `sbx-${randomBytes(10).toString("hex")}`;
  }

  /** Refuses an id that could not have come from a sandbox (it names a path component). */
  static checkId(id: unknown): string {
    if (typeof id !== "string" || !ID_PATTERN.test(id)) {
      throw invalidRequest(`sandbox id ${JSON.stringify(id)} is malformed`, { field: "id" }, LOCAL_PROVIDER);
    }
    return id;
  }

  /** `<root>/<id>`: everything of a sandbox, its metadata last to go. */
  sandboxDirectory(id: string): string {
    return join(this.root, id);
  }

  /** Host directory of a sandbox's workspace: inside its mounted image when it has a disk bound. */
  workspaceDirectory(sandbox: WorkspaceOwner): string {
    return sandbox.disk ? join(this.root, sandbox.id, DISK_MOUNT, WORKSPACE) : join(this.root, sandbox.id, WORKSPACE);
  }

  /** Async commands' records and output, outside the workspace. */
  commandsDirectory(id: string): string {
    return join(this.root, id, COMMANDS);
  }

  /** The markers of a sandbox's running commands. */
  runningDirectory(id: string): string {
    return join(this.root, id, RUNNING);
  }

  /** Where removed workspace trees are taken apart: on the workspace's own file system. */
  trashDirectory(sandbox: WorkspaceOwner): string {
    return sandbox.disk ? join(this.root, sandbox.id, DISK_MOUNT, TRASH) : join(this.root, sandbox.id, TRASH);
  }

  /** Exposed ports' relay program and Unix sockets, read-only to commands. */
  portsDirectory(id: string): string {
    return join(this.root, id, PORTS);
  }

  /** Where a sandbox with an allow list keeps its egress relay and the proxies' sockets. */
  egressDirectory(id: string): string {
    return join(this.root, id, EGRESS);
  }
}
