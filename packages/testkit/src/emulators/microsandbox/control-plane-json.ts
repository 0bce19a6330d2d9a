/** Response shapes of the cloud control plane (OpenAPI `SandboxResponse` and its `SandboxSpecResponse`). */

import type { MicrosandboxContext, MicrosandboxSandbox } from "./context.js";

function isoOrNull(epochMs: number | null): string | null {
  return epochMs === null ? null : new Date(epochMs).toISOString();
}

/**
 * The curated spec projection: the image as a plain reference, secrets and
 * volume ids left out. The SDK cannot read it back as a create spec, so a
 * sandbox it reattaches to (`Sandbox.get`, `Sandbox.start`) runs commands
 * with SDK defaults; the emulator, like the sandbox itself, still applies the
 * create-time environment and working directory to every command.
 */
function specJson(sandbox: MicrosandboxSandbox) {
  const spec = sandbox.data.spec;
  return {
    image: spec.image,
    resources: { vcpus: spec.vcpus, memory_mib: spec.memoryMib },
    runtime: { ...spec.runtime, workdir: spec.workdir },
    env: spec.env.map(({ key, value }) => ({ key, value })),
    labels: { ...sandbox.metadata },
    rlimits: [],
    lifecycle: {
      ephemeral: spec.ephemeral,
      max_duration_secs: spec.maxDurationSecs,
      idle_timeout_secs: spec.idleTimeoutSecs,
    },
    mounts: [],
    network: { enabled: spec.networkEnabled, ports: [], secrets: [], trust_host_cas: false },
  };
}

/** `SandboxResponse`. */
export function sandboxJson(sandbox: MicrosandboxSandbox, context: MicrosandboxContext) {
  return {
    id: sandbox.id,
    org_id: context.orgId,
    name: sandbox.data.name,
    slug: sandbox.data.slug,
    status: sandbox.state,
    status_reason: null,
    spec: specJson(sandbox),
    ephemeral: sandbox.data.spec.ephemeral,
    created_at: new Date(sandbox.createdAt).toISOString(),
    started_at: isoOrNull(sandbox.data.startedAt),
    stopped_at: isoOrNull(sandbox.data.stoppedAt),
    last_failure_message: null,
  };
}
