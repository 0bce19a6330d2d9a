import { invalidRequest } from "../errors/factories.js";

/**
 * Longest command string a provider that hands it to `bash -c` as one
 * argument can take: Linux refuses a single argument over 128 KiB
 * (`MAX_ARG_STRLEN`); this leaves room for the wrapper.
 */
export const MAX_COMMAND_BYTES = 120 * 1024;

/** Refuses (`INVALID_REQUEST`) a command string longer than `limit` bytes, before it is sent. */
export function assertCommandFits(command: string, provider: string, limit = MAX_COMMAND_BYTES): void {
  if (Buffer.byteLength(command) > limit) {
    throw invalidRequest(
      `the command (argv or shell script) is longer than ${limit} bytes, the most ${provider} can pass to its shell`,
      { limit },
      provider,
    );
  }
}
