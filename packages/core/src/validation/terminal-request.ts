import { invalidRequest } from "../errors/factories.js";
import {
  DEFAULT_TERMINAL_SIZE,
  MAX_TERMINAL_CELLS,
  TERMINAL_REQUEST_KEYS,
  TERMINAL_SIGNALS,
  type TerminalSignal,
  type TerminalSize,
} from "../port/terminal.js";
import { refuseUnknownShape } from "./known-keys.js";
import { refuseNonNumber } from "./numbers.js";
import { type ValidatedExecRequest, type ValidationContext, validateExecRequest } from "./requests.js";

/** A terminal request after validation: the command as a validated exec request (without stdin), and the size. */
export interface ValidatedTerminalRequest {
  /** The command, `cwd`, `env`, `timeoutMs` and `maxOutputBytes`, validated as for `exec`. */
  readonly command: ValidatedExecRequest;
  /** The window size; {@link DEFAULT_TERMINAL_SIZE} where the request gave none. */
  readonly size: TerminalSize;
}

/**
 * Validates an `openTerminal` request: no key beyond `TERMINAL_REQUEST_KEYS`;
 * the command, `cwd`, `env`, `timeoutMs` and `maxOutputBytes` as
 * `validateExecRequest` checks them; `cols` and `rows` as
 * {@link validateTerminalSize} does. Throws `INVALID_REQUEST` before any provider call.
 */
export function validateTerminalRequest(request: unknown, context: ValidationContext = {}): ValidatedTerminalRequest {
  const provider = context.provider;
  refuseUnknownShape(request, TERMINAL_REQUEST_KEYS, "terminal request", provider);
  const { cols, rows, ...command } = request as Record<string, unknown>;
  const size = validateTerminalSize(cols ?? DEFAULT_TERMINAL_SIZE.cols, rows ?? DEFAULT_TERMINAL_SIZE.rows, provider);
  return { command: validateExecRequest(command, context), size };
}

/** Checks a window size: `cols` and `rows` integers from 1 to `MAX_TERMINAL_CELLS`, else `INVALID_REQUEST`. */
export function validateTerminalSize(cols: unknown, rows: unknown, provider?: string): TerminalSize {
  for (const [field, value] of [
    ["cols", cols],
    ["rows", rows],
  ] as const) {
    refuseNonNumber(value, field, provider);
    if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > MAX_TERMINAL_CELLS) {
      throw invalidRequest(
        `${field} must be an integer from 1 to ${MAX_TERMINAL_CELLS}, got ${String(value)}`,
        { field, value: String(value) },
        provider,
      );
    }
  }
  return { cols: cols as number, rows: rows as number };
}

/** Checks a signal for `Terminal.kill`: absent means `SIGKILL`; anything not in `TERMINAL_SIGNALS` is `INVALID_REQUEST`. */
export function validateTerminalSignal(signal: unknown, provider?: string): TerminalSignal {
  if (signal === undefined) return "SIGKILL";
  if (!TERMINAL_SIGNALS.includes(signal as TerminalSignal)) {
    throw invalidRequest(
      `signal must be one of ${TERMINAL_SIGNALS.join(", ")}, got ${String(signal)}`,
      { field: "signal" },
      provider,
    );
  }
  return signal as TerminalSignal;
}
