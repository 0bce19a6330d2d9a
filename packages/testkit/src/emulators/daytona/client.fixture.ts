// Helpers shared by the Daytona emulator's wire tests.

import { waitFor } from "../../assertions/index.js";
import type { DaytonaEmulator } from "./emulator.js";
import type { DaytonaClient, DaytonaSdkUnderTest } from "./sdk.fixture.js";

/**
 * A client of `sdk` pointed at the emulator with every connection option
 * explicit, polling instead of waiting for events (the emulator has no event
 * stream; without this the 0.205+ SDKs poll only once a second).
 */
export function openClient(
  sdk: DaytonaSdkUnderTest,
  emulator: DaytonaEmulator,
  extra: Record<string, unknown> = {},
): DaytonaClient {
  return new sdk.sdk.Daytona({ ...emulator.sdkOptions, useDeprecatedPolling: true, ...extra });
}

/** `fetch` against the emulator with the accepted API key. */
export function emulatorFetch(emulator: DaytonaEmulator, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${emulator.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${emulator.apiKey}`, ...init.headers },
  });
}

/** Resolves once the sandbox is gone from the emulator (its destroy finished). */
export async function gone(emulator: DaytonaEmulator, id: string): Promise<void> {
  await waitFor(() => !emulator.liveSandboxes().some((sandbox) => sandbox.id === id), {
    timeoutMs: 10_000,
    what: `sandbox ${id} to be gone`,
  });
}

/** Delete every sandbox the emulator holds (retrying while a state change is in progress) and wait until all are gone. */
export async function deleteAll(emulator: DaytonaEmulator): Promise<void> {
  await waitFor(
    async () => {
      const live = emulator.liveSandboxes();
      for (const { id, state } of live) {
        if (state !== "destroying") await emulatorFetch(emulator, `/api/sandbox/${id}`, { method: "DELETE" });
      }
      return live.length === 0;
    },
    { timeoutMs: 10_000, what: "every sandbox to be deleted" },
  );
}
