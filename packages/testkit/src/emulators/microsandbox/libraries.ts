/**
 * The library the emulator speaks agentd's protocol with, `cbor-x` (CBOR): an
 * optional peer dependency of `@sandport/testkit`, loaded when a
 * microsandbox emulator starts, so that importing the test kit never loads
 * it. (The agent relay's WebSocket is the harness's own.)
 *
 * @module
 */

/** The `cbor-x` peer range the emulator supports. */
export const CBOR_X_RANGE = "^1.6.0";

/** The CBOR codec class pair of `cbor-x`. */
export interface CborLibrary {
  readonly Encoder: typeof import("cbor-x").Encoder;
  readonly Decoder: typeof import("cbor-x").Decoder;
}

/** Load `cbor-x`; a failure names the package and its range. */
export async function loadCbor(): Promise<CborLibrary> {
  try {
    const cbor = await import("cbor-x");
    return { Encoder: cbor.Encoder, Decoder: cbor.Decoder };
  } catch (error) {
    throw new Error(
      `the microsandbox emulator needs the optional peer dependency "cbor-x" (${CBOR_X_RANGE}) of ` +
        `@sandport/testkit, which could not be loaded: ${error instanceof Error ? error.message : String(error)}. ` +
        "Install it next to @sandport/testkit.",
      { cause: error },
    );
  }
}
