/**
 * The libraries the emulator speaks its protocols with, `ws` (WebSocket) and
 * `cbor-x` (CBOR): optional peer dependencies of `@sandport/testkit`, loaded
 * when a microsandbox emulator starts, so that importing the test kit never
 * loads them.
 *
 * @module
 */

import type { WebSocketServer } from "ws";

/** The `ws` peer range the emulator supports. */
export const WS_RANGE = "^8.0.0";
/** The `cbor-x` peer range the emulator supports. */
export const CBOR_X_RANGE = "^1.6.0";

/** The CBOR codec class pair of `cbor-x`. */
export interface CborLibrary {
  readonly Encoder: typeof import("cbor-x").Encoder;
  readonly Decoder: typeof import("cbor-x").Decoder;
}

/** What the emulator needs from its optional peers. */
export interface ProtocolLibraries {
  readonly WebSocketServer: typeof WebSocketServer;
  readonly cbor: CborLibrary;
}

/** Load `ws` and `cbor-x`; a failure names both packages and their ranges. */
export async function loadProtocolLibraries(): Promise<ProtocolLibraries> {
  try {
    const [ws, cbor] = await Promise.all([import("ws"), import("cbor-x")]);
    return { WebSocketServer: ws.WebSocketServer, cbor: { Encoder: cbor.Encoder, Decoder: cbor.Decoder } };
  } catch (error) {
    throw new Error(
      `the microsandbox emulator needs the optional peer dependencies "ws" (${WS_RANGE}) and "cbor-x" ` +
        `(${CBOR_X_RANGE}) of @sandport/testkit, which could not be loaded: ` +
        `${error instanceof Error ? error.message : String(error)}. Install them next to @sandport/testkit.`,
      { cause: error },
    );
  }
}
