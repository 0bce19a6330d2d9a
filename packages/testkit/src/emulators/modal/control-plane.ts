/**
 * Control-plane calls around sandboxes: the auth token, environments, apps,
 * images (accepted and reported built at once) and secrets.
 *
 * @module
 */

import { type ModalContext, unary } from "./context.js";
import { GrpcError } from "./grpc-status.js";
import { objectId } from "./ids.js";

/** What `EnvironmentGetOrCreate` reports as the environment's image builder version. */
export const IMAGE_BUILDER_VERSION = "2025.06";

const CREATE_IF_MISSING = "OBJECT_CREATION_TYPE_CREATE_IF_MISSING";
const EPHEMERAL = "OBJECT_CREATION_TYPE_EPHEMERAL";

/** Implement auth, environment, app, image and secret calls on the emulator. */
export function registerControlPlane(context: ModalContext): void {
  const { state } = context;
  const implement = (method: string, handle: Parameters<typeof unary>[0]) =>
    context.implement("controlPlane", method, unary(handle));

  implement("AuthTokenGet", () => ({ token: context.auth.mintAuthToken() }));

  implement("EnvironmentGetOrCreate", (request) => {
    const name = typeof request.deploymentName === "string" ? request.deploymentName : "";
    const environment =
      name !== "" && request.objectCreationType === CREATE_IF_MISSING
        ? state.createEnvironment(name)
        : state.environment(name);
    return {
      environmentId: environment.id,
      metadata: {
        name: environment.name,
        settings: { imageBuilderVersion: IMAGE_BUILDER_VERSION, webhookSuffix: "modal.run" },
      },
    };
  });

  implement("AppGetOrCreate", (request) => {
    const name = request.appName;
    if (typeof name !== "string" || name === "") throw new GrpcError("INVALID_ARGUMENT", "appName is required");
    const environment = state.environment(request.environmentName);
    const app = state.app(environment.name, name, request.objectCreationType === CREATE_IF_MISSING);
    return { appId: app.id };
  });

  implement("ImageGetOrCreate", (request) => {
    state.appById(request.appId);
    const image = (request.image ?? {}) as Record<string, unknown>;
    // The same definition is the same image, as Modal deduplicates builds.
    const definition = JSON.stringify({ commands: image.dockerfileCommands ?? [], baseImages: image.baseImages ?? [] });
    let found = [...state.images.values()].find((entry) => entry.definition === definition);
    if (!found) {
      found = { id: objectId("im"), definition };
      state.images.set(found.id, found);
    }
    return { imageId: found.id, result: { status: "GENERIC_STATUS_SUCCESS" } };
  });

  implement("ImageFromId", (request) => {
    const image = state.image(request.imageId);
    if (!image) throw new GrpcError("NOT_FOUND", `Could not find image with ID ${String(request.imageId)}`);
    return { imageId: image.id };
  });

  implement("SecretGetOrCreate", (request) => {
    const env = stringMap(request.envDict);
    if (request.objectCreationType === EPHEMERAL) return { secretId: state.addSecret(env).id };
    const name = request.deploymentName;
    if (typeof name !== "string" || name === "") throw new GrpcError("INVALID_ARGUMENT", "deploymentName is required");
    const environment = state.environment(request.environmentName).name;
    let secret = state.secretNamed(environment, name);
    if (!secret && request.objectCreationType === CREATE_IF_MISSING)
      secret = state.addSecret(env, { environment, name });
    if (!secret) throw new GrpcError("NOT_FOUND", `Secret '${name}' not found in environment '${environment}'`);
    const required = Array.isArray(request.requiredKeys) ? request.requiredKeys.map(String) : [];
    const missing = required.filter((key) => !(key in secret.env));
    if (missing.length > 0)
      throw new GrpcError("FAILED_PRECONDITION", `Secret is missing key(s): ${missing.join(", ")}`);
    return { secretId: secret.id };
  });
}

/** A proto3 JSON `map<string, string>` (or `undefined`) as a plain record. */
export function stringMap(value: unknown): Record<string, string> {
  if (typeof value !== "object" || value === null) return {};
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, String(entry)]));
}
