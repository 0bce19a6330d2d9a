import type * as OpenTelemetryApi from "@opentelemetry/api";
import { createSdkLoader, type SdkLoader } from "@sandport/core/adapter";

/**
 * The slice of `@opentelemetry/api` the bridge uses at run time: `trace`, to
 * put a workload's span in the context its step spans start from, and
 * `ROOT_CONTEXT`, the parent when the caller names none.
 */
export type OpenTelemetrySdk = Pick<typeof OpenTelemetryApi, "trace" | "ROOT_CONTEXT">;

/**
 * The loader of `@opentelemetry/api`, the only run-time import of it in the
 * package: importing `@sandport/opentelemetry` loads nothing, creating a
 * listener does. A failure is `SDK_UNAVAILABLE` naming the package and range.
 */
export const loadOpenTelemetry: SdkLoader<OpenTelemetrySdk> = createSdkLoader<OpenTelemetrySdk>({
  provider: "opentelemetry",
  adapterPackage: "@sandport/opentelemetry",
  range: ">=1.3.0 <2",
  packages: [{ name: "@opentelemetry/api", load: () => import("@opentelemetry/api") }],
  requiredMembers: ["trace", "ROOT_CONTEXT"],
});
