/**
 * The API's sandbox shapes: `Sandbox` (create, get, start, stop, delete) and
 * `SandboxListItem` (list pages), as the 0.218 API client declares them.
 * Both carry `sandboxClass`, `warmPoolId` and `toolboxProxyUrl`.
 *
 * @module
 */

import type { DaytonaContext, DaytonaSandbox } from "./context.js";

/** Version of the daemon every sandbox reports. */
const DAEMON_VERSION = "0.218.0";
/** The runner every emulated sandbox is placed on. */
const RUNNER_ID = "emulator-runner";

function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

/** One item of a list page. */
export function sandboxListItemJson(sandbox: DaytonaSandbox, context: DaytonaContext) {
  const data = sandbox.data;
  return {
    id: sandbox.id,
    organizationId: context.credentials.organizationId,
    name: data.name,
    target: data.target,
    runnerId: RUNNER_ID,
    sandboxClass: data.sandboxClass,
    state: sandbox.state,
    desiredState: data.desiredState,
    ...(data.snapshot === undefined ? {} : { snapshot: data.snapshot }),
    user: data.user,
    ...(data.errorReason === undefined ? {} : { errorReason: data.errorReason }),
    recoverable: false,
    public: data.public,
    networkBlockAll: data.networkBlockAll,
    ...(data.networkAllowList === undefined ? {} : { networkAllowList: data.networkAllowList }),
    ...(data.domainAllowList === undefined ? {} : { domainAllowList: data.domainAllowList }),
    cpu: data.resources.cpu,
    gpu: data.resources.gpu,
    memory: data.resources.memory,
    disk: data.resources.disk,
    labels: { ...sandbox.metadata },
    backupState: "None",
    autoStopInterval: data.autoStopInterval,
    autoArchiveInterval: data.autoArchiveInterval,
    autoDeleteInterval: data.autoDeleteInterval,
    createdAt: iso(sandbox.createdAt),
    updatedAt: iso(data.updatedAt),
    lastActivityAt: iso(data.lastActivityAt),
    daemonVersion: DAEMON_VERSION,
    // Set only while a sandbox waits unclaimed in a warm pool; an emulated sandbox never does.
    warmPoolId: null,
    toolboxProxyUrl: context.toolboxProxyUrl,
  };
}

/** The full sandbox, as create, get and the lifecycle calls answer it. */
export function sandboxJson(sandbox: DaytonaSandbox, context: DaytonaContext) {
  const data = sandbox.data;
  return {
    ...sandboxListItemJson(sandbox, context),
    env: { ...data.env },
    volumes: [],
    kvm: false,
    ...(data.buildInfo === undefined
      ? {}
      : {
          buildInfo: {
            dockerfileContent: data.buildInfo.dockerfileContent,
            contextHashes: [...(data.buildInfo.contextHashes ?? [])],
            createdAt: iso(sandbox.createdAt),
            updatedAt: iso(sandbox.createdAt),
            snapshotRef: `emulator-build-${sandbox.id}`,
          },
        }),
  };
}
