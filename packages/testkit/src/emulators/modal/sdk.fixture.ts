// Loads the real Modal SDK for the emulator's wire tests, hermetically: the
// SDK parses `~/.modal.toml` (or `MODAL_CONFIG_PATH`) when it is first
// imported and reads `MODAL_*` variables when a client is constructed, so
// both are pinned before the import.

import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as ModalModule from "modal";
import type { ModalEmulator } from "./emulator.js";

export type Modal = typeof ModalModule;
export type ModalClient = ModalModule.ModalClient;
export type ModalLogger = NonNullable<ModalModule.ModalClientParams["logger"]>;

/** What the SDK's logger received, by level (its warnings would otherwise go to the console). */
export interface LoggedMessages {
  readonly warn: string[];
  readonly error: string[];
}

/**
 * Import `modal` with no ambient `MODAL_*` variables and the given config file,
 * by default none (a path that does not exist reads as an empty config).
 */
export async function loadModal(configPath?: string): Promise<Modal> {
  for (const name of Object.keys(process.env)) if (name.startsWith("MODAL_")) delete process.env[name];
  process.env.MODAL_CONFIG_PATH = configPath ?? join(tmpdir(), `sandport-modal-no-config-${process.pid}`, "modal.toml");
  return import("modal");
}

/** A logger that keeps warnings and errors for assertions instead of printing them. */
export function quietLogger(): { logger: ModalLogger; messages: LoggedMessages } {
  const messages: LoggedMessages = { warn: [], error: [] };
  const logger: ModalLogger = {
    debug() {},
    info() {},
    warn: (message: string) => void messages.warn.push(message),
    error: (message: string) => void messages.error.push(message),
  };
  return { logger, messages };
}

/** A client pointed at the emulator: the server URL is in the environment only while it is constructed. */
export function clientFor(
  modal: Modal,
  emulator: ModalEmulator,
  params: ModalModule.ModalClientParams = {},
): { client: ModalClient; messages: LoggedMessages } {
  const { logger, messages } = quietLogger();
  const client = emulator.construct(() => new modal.ModalClient({ ...emulator.sdkOptions, logger, ...params }));
  return { client, messages };
}
