/** Response shapes of the Vercel Sandbox API as the SDK's validators expect them (`Sandbox`, `Session`, `Command`). */

import type { EmulatedCommand } from "./command-table.js";
import type { VercelSandbox, VercelSession } from "./context.js";
import { routesFor } from "./exposed-ports.js";
import type { ReportedNetworkPolicy } from "./network-policy.js";
import { SANDBOX_ROOT } from "./paths.js";

/** Memory per vCPU in MB, as Vercel allots it. */
export const MEMORY_PER_VCPU_MB = 2048;

/** A session as the API reports it (`Session`). */
export function sessionJson(session: VercelSession) {
  return {
    id: session.id,
    memory: session.vcpus * MEMORY_PER_VCPU_MB,
    vcpus: session.vcpus,
    region: session.region,
    timeout: session.timeout,
    status: session.status,
    requestedAt: session.startedAt,
    startedAt: session.startedAt,
    createdAt: session.startedAt,
    updatedAt: session.updatedAt,
    cwd: SANDBOX_ROOT,
    ...(session.stoppedAt === undefined
      ? {}
      : {
          requestedStopAt: session.stoppedAt,
          stoppedAt: session.stoppedAt,
          duration: session.stoppedAt - session.startedAt,
        }),
  };
}

/** A sandbox as the API reports it (`Sandbox`); its status is its current session's. */
export function sandboxJson(sandbox: VercelSandbox) {
  const data = sandbox.data;
  const session = data.session;
  return {
    name: sandbox.id,
    persistent: data.persistent,
    region: data.region,
    ...(data.failoverRegions === undefined ? {} : { failoverRegions: [...data.failoverRegions] }),
    vcpus: data.vcpus,
    memory: data.vcpus * MEMORY_PER_VCPU_MB,
    ...(data.image === undefined ? {} : { image: data.image }),
    ...(data.runtime === undefined ? {} : { runtime: data.runtime }),
    timeout: data.timeout,
    networkPolicy: reportedPolicyJson(data.networkPolicy),
    createdAt: sandbox.createdAt,
    updatedAt: data.updatedAt,
    ...(session.status === "running" ? { expiresAt: session.startedAt + session.timeout } : {}),
    currentSessionId: session.id,
    status: session.status,
    statusUpdatedAt: data.statusUpdatedAt,
    cwd: SANDBOX_ROOT,
    tags: { ...sandbox.metadata },
  };
}

/** `{ sandbox, session, routes }`, the answer of create and get. */
export function sandboxAndSessionJson(sandbox: VercelSandbox, resumed?: boolean) {
  return {
    sandbox: sandboxJson(sandbox),
    session: sessionJson(sandbox.data.session),
    routes: routesFor(sandbox),
    ...(resumed === undefined ? {} : { resumed }),
  };
}

/** A command as the API reports it (`Command`); `exitCode` is `null` while it runs. */
export function commandJson(command: EmulatedCommand) {
  return {
    ...command.view,
    args: [...command.view.args],
    exitCode: command.exitCode,
    startedAt: command.startedAt,
    ...(command.durationMs === undefined ? {} : { durationMs: command.durationMs }),
  };
}

/** A network policy as Vercel reports it, its lists copied. */
function reportedPolicyJson(policy: ReportedNetworkPolicy) {
  if (policy.mode !== "custom") return { mode: policy.mode };
  return {
    mode: policy.mode,
    ...(policy.allowedDomains === undefined ? {} : { allowedDomains: [...policy.allowedDomains] }),
    ...(policy.allowedCIDRs === undefined ? {} : { allowedCIDRs: [...policy.allowedCIDRs] }),
  };
}
