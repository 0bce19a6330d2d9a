// Loads the real Daytona SDKs for the emulator's wire tests: the newest
// @daytonaio/sdk, the oldest supported one (installed under the alias
// daytona-sdk-legacy) and the renamed @daytona/sdk, all pinned devDependencies
// of @sandport/testkit.

import { createRequire } from "node:module";
import type * as DaytonaModule from "@daytonaio/sdk";

/** The SDK module, typed as the newest build. */
export type Daytona = typeof DaytonaModule;
/** A `Daytona` client instance. */
export type DaytonaClient = DaytonaModule.Daytona;
/** A `Sandbox` the SDK returns. */
export type DaytonaSandbox = DaytonaModule.Sandbox;

/** One SDK build the emulator is tested against. */
export interface DaytonaSdkUnderTest {
  /** Package and version, for test names. */
  readonly label: string;
  /** The version the SDK reports in `X-Daytona-SDK-Version`. */
  readonly version: string;
  /**
   * The SDK module. The older builds are typed with the newest one's surface;
   * tests call only what every build has, or check {@link DaytonaSdkUnderTest.eventStream} first.
   */
  readonly sdk: Daytona;
  /** Loads a dependency of this SDK build (its own `@daytona/api-client`, `ws`, ...). */
  readonly requireDependency: NodeJS.Require;
  /** True from 0.205: the client opens a socket.io event stream unless `useDeprecatedPolling` is set. */
  readonly eventStream: boolean;
}

const requireHere = createRequire(import.meta.url);

function load(name: string, label: string, version: string, eventStream: boolean): DaytonaSdkUnderTest {
  return {
    label,
    version,
    sdk: requireHere(name) as Daytona,
    requireDependency: createRequire(requireHere.resolve(name)),
    eventStream,
  };
}

/** @daytonaio/sdk 0.218.0, the newest. */
export const daytonaLatest = load("@daytonaio/sdk", "@daytonaio/sdk 0.218.0", "0.218.0", true);

/** @daytonaio/sdk 0.180.0, the oldest supported. */
export const daytonaLegacy = load("daytona-sdk-legacy", "@daytonaio/sdk 0.180.0", "0.180.0", false);

/** @daytona/sdk 0.216.0, the renamed package. */
export const daytonaRenamed = load("@daytona/sdk", "@daytona/sdk 0.216.0", "0.216.0", true);

/** The builds every wire test runs against. */
export const DAYTONA_SDKS: readonly DaytonaSdkUnderTest[] = [daytonaLatest, daytonaLegacy];
