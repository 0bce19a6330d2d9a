/**
 * The `/v5` JSON of a VM (`VmData` in the SDK) and of a created one.
 *
 * @module
 */

import type { FirewallRuleRecord, FreestyleVm } from "./context.js";
import { totalRunMs } from "./lifecycle.js";

/** Nominal sizes of the catalog snapshots (vCPU, MiB of memory, MiB of disk); reported, not enforced. */
const CATALOG_RESOURCES: Readonly<Record<string, readonly [number, number, number]>> = {
  "freestyle/ubuntu-sm": [2, 4096, 16384],
  "freestyle/ubuntu": [4, 8192, 32768],
  "freestyle/ubuntu-lg": [8, 16384, 65536],
  "freestyle/ubuntu-xl": [16, 32768, 131072],
  "freestyle/ubuntu-2xl": [32, 65536, 131072],
  "freestyle/ubuntu-3xl": [64, 131072, 262144],
  "freestyle/busybox": [1, 128, 1024],
};

/** A VM as `GET /v5/vms/{id}` reports it. */
export function vmJson(vm: FreestyleVm): Record<string, unknown> {
  const data = vm.data;
  const [cpu, memory, storage] = CATALOG_RESOURCES[data.snapshotId] ?? CATALOG_RESOURCES["freestyle/ubuntu"]!;
  return {
    id: vm.id,
    state: vm.state,
    slug: data.slug,
    displayName: data.displayName,
    resources: { cpu, memory, storage },
    snapshotId: data.snapshotId,
    sourceSnapshotSlugAtCreate: data.snapshotId,
    sourceSnapshotSlug: data.snapshotId,
    idleTimeoutSeconds: data.limits.idleTimeoutSeconds,
    autoDeleteSeconds: data.limits.autoDeleteSeconds,
    autoDeleteFromPlan: false,
    ttlSeconds: data.limits.ttlSeconds,
    maxRunSeconds: data.limits.maxRunSeconds,
    maxRunTotalSeconds: data.limits.maxRunTotalSeconds,
    totalRunSeconds: Math.floor(totalRunMs(vm) / 1000),
    automaticRestart: data.automaticRestart,
    publicIpv6: null,
    egressIpv4: null,
    egressIpv6: null,
    metadata: { ...vm.metadata },
    placement: null,
    cpuTimeSeconds: null,
    lastNetworkActivity: null,
    vpcs: [],
    networks: [],
    createdAt: new Date(vm.createdAt).toISOString(),
    updatedAt: new Date(data.updatedAt).toISOString(),
  };
}

/** A firewall rule as the API reports it. */
export function firewallRuleJson(rule: FirewallRuleRecord, vm: FreestyleVm): Record<string, unknown> {
  return {
    id: rule.id,
    action: rule.action,
    source: rule.source,
    destination: rule.destination,
    description: rule.description,
    dependencies: [{ kind: "vm", id: vm.id, slug: vm.data.slug, displayName: vm.data.displayName }],
    createdAt: rule.createdAt,
    updatedAt: rule.createdAt,
  };
}

/** The answer of `POST /v5/vms`: the VM plus the rules its create declared. */
export function createdVmJson(vm: FreestyleVm): Record<string, unknown> {
  return {
    ...vmJson(vm),
    firewallRules: vm.data.firewallRules.map((rule) => firewallRuleJson(rule, vm)),
    tlsRules: [],
  };
}
