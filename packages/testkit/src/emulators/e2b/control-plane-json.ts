/** Response shapes and small helpers of the E2B control plane (OpenAPI `Sandbox`, `ListedSandbox`, `SandboxDetail`). */

import type { Exchange } from "../harness/exchange.js";
import type { E2BContext, E2BSandbox } from "./context.js";

const CLIENT_ID = "emulator";

/** Answer 400 with E2B's `{ code, message }` error, as a handler sends it. */
export function badRequest(exchange: Exchange, message: string): void {
  exchange.json(400, { code: 400, message });
}

/**
 * Answer 400 as E2B's OpenAPI request validator does, before any handler runs:
 * `{ code: 400, message: "validation error: <kin-openapi's reason>" }`.
 */
export function validationError(exchange: Exchange, reason: string): void {
  badRequest(exchange, `validation error: ${reason}`);
}

export function sandboxJson(sandbox: E2BSandbox, context: E2BContext) {
  return {
    sandboxID: sandbox.id,
    templateID: sandbox.data.templateId,
    alias: sandbox.data.templateId,
    clientID: CLIENT_ID,
    envdVersion: context.envdVersion,
    envdAccessToken: sandbox.data.envdAccessToken,
    domain: null,
    // Only create and connect answer with it, as E2B does; the detail and list do not.
    trafficAccessToken: sandbox.data.trafficAccessToken ?? null,
  };
}

export function listedJson(sandbox: E2BSandbox, context: E2BContext) {
  return {
    sandboxID: sandbox.id,
    templateID: sandbox.data.templateId,
    alias: sandbox.data.templateId,
    clientID: CLIENT_ID,
    startedAt: new Date(sandbox.data.startedAt).toISOString(),
    endAt: new Date(sandbox.data.endAt).toISOString(),
    // What the sandbox was given (its template's), never what a create asked: E2B's create takes no sizes.
    cpuCount: sandbox.data.size.cpuCount,
    memoryMB: sandbox.data.size.memoryMB,
    diskSizeMB: sandbox.data.size.diskSizeMB,
    envdVersion: context.envdVersion,
    metadata: { ...sandbox.metadata },
    state: sandbox.state,
    volumeMounts: [],
  };
}

export function detailJson(sandbox: E2BSandbox, context: E2BContext) {
  return {
    ...listedJson(sandbox, context),
    envdAccessToken: sandbox.data.envdAccessToken,
    domain: null,
    allowInternetAccess: sandbox.data.egress.allowInternetAccess,
    network: {
      allowPublicTraffic: sandbox.data.allowPublicTraffic,
      ...(sandbox.data.egress.allowOut === undefined ? {} : { allowOut: [...sandbox.data.egress.allowOut] }),
      ...(sandbox.data.egress.denyOut === undefined ? {} : { denyOut: [...sandbox.data.egress.denyOut] }),
    },
    lifecycle: { onTimeout: sandbox.data.autoPause ? "pause" : "kill", autoResume: false },
  };
}
