import type { LaunchSpec, SandboxRuntime } from "@sandport/core";
import { destroyBackendSandbox } from "../harness/backend.js";
import type { CreateSandboxInput } from "./context.js";
import { toGrpcError } from "./grpc-status.js";
import { ulidId } from "./ids.js";
import { backendNetwork } from "./network-access.js";
import { EmulatedSandbox } from "./sandbox.js";
import type { ModalState } from "./state.js";

/** Deadline of a backend `launch`. */
const LAUNCH_TIMEOUT_MS = 120_000;
/** Deadline of a backend `destroy`. */
export const DESTROY_TIMEOUT_MS = 60_000;
/** The backend's own lifetime outlives the emulator's timer, so the emulator decides when a sandbox ends. */
const BACKEND_LIFETIME_MARGIN_MS = 60_000;

/**
 * Launch the backend workspace of a new sandbox and build its record (not yet
 * registered or armed). `networkAccess` (see `network-access.ts`), cpu and
 * memory become the launch's `network` and `resources`, so a backend that cannot honour them refuses the
 * create with its own reason; the sandbox env becomes the launch env, and
 * the tunnel ports are declared as the launch's `ports`.
 */
export async function launchSandbox(
  backend: SandboxRuntime,
  state: ModalState,
  input: CreateSandboxInput,
): Promise<EmulatedSandbox> {
  const resources = {
    ...(input.cpus === undefined ? {} : { cpus: input.cpus }),
    ...(input.memoryMiB === undefined ? {} : { memoryMiB: input.memoryMiB }),
  };
  const network = backendNetwork(input.network);
  const spec: LaunchSpec = {
    ...(Object.keys(input.env).length > 0 ? { env: input.env } : {}),
    lifetimeMs: input.timeoutSecs * 1000 + BACKEND_LIFETIME_MARGIN_MS,
    ...(network === undefined ? {} : { network }),
    ...(Object.keys(resources).length > 0 ? { resources } : {}),
    ...(input.ports.length > 0 ? { ports: input.ports.map((tunnel) => tunnel.port) } : {}),
    ...(input.from === undefined ? {} : { from: input.from }),
  };
  const handle = await backend.launch(spec, { timeoutMs: LAUNCH_TIMEOUT_MS }).catch((error: unknown) => {
    throw toGrpcError(error);
  });
  try {
    // Like Docker's WORKDIR, a sandbox's workdir exists once it runs.
    if (input.workdir !== "" && backend.mkdir) await backend.mkdir(handle, input.workdir);
  } catch (error) {
    await destroyBackendSandbox(backend, handle, DESTROY_TIMEOUT_MS).catch(() => undefined);
    throw toGrpcError(error);
  }
  return new EmulatedSandbox(
    {
      id: ulidId("sb"),
      taskId: ulidId("ta"),
      appId: input.appId,
      environment: input.environment,
      name: input.name,
      imageId: input.imageId,
      env: input.env,
      workdir: input.workdir,
      timeoutSecs: input.timeoutSecs,
      idleTimeoutSecs: input.idleTimeoutSecs,
      ports: input.ports,
      network: input.network,
      resources: { cpus: input.cpus, memoryMiB: input.memoryMiB, reserved: { ...input.reserved } },
      createdAt: state.nextCreatedAt(),
      foreign: input.foreign,
    },
    handle,
    { ...input.tags },
  );
}
