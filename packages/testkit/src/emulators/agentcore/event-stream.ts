/**
 * Invoke's answer: an AWS event stream (`application/vnd.amazon.eventstream`)
 * whose frames are encoded with the codec the SDK itself decodes with
 * (`EventStreamCodec` from `@smithy/core/event-streams`, an optional peer of
 * the test kit, loaded when the emulator starts).
 *
 * @module
 */

/** The `@smithy/core` peer range the emulator supports. */
export const SMITHY_CORE_RANGE = "^3.35.0";

/** Turns one event-stream message into bytes. */
export interface FrameEncoder {
  /** A `result` event carrying a JSON `CodeInterpreterResult`. */
  result(value: unknown): Uint8Array;
  /** A modeled exception frame (`:message-type=exception`), e.g. `throttlingException`. */
  exception(type: string, message: string): Uint8Array;
}

interface HeaderValue {
  readonly type: "string";
  readonly value: string;
}

interface Codec {
  encode(message: { headers: Record<string, HeaderValue>; body: Uint8Array }): Uint8Array;
}

/** Load the codec; a failure names the package and its range. */
export async function loadFrameEncoder(): Promise<FrameEncoder> {
  let codec: Codec;
  try {
    const streams = await import("@smithy/core/event-streams");
    const serde = await import("@smithy/core/serde");
    codec = new streams.EventStreamCodec(serde.toUtf8, serde.fromUtf8) as Codec;
  } catch (error) {
    throw new Error(
      `the agentcore emulator needs the optional peer dependency "@smithy/core" (${SMITHY_CORE_RANGE}) of ` +
        `@sandport/testkit, which could not be loaded: ${error instanceof Error ? error.message : String(error)}. ` +
        "Install it next to @sandport/testkit.",
      { cause: error },
    );
  }
  const text = (value: string): HeaderValue => ({ type: "string", value });
  const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
  return {
    result: (value) =>
      codec.encode({
        headers: {
          ":message-type": text("event"),
          ":event-type": text("result"),
          ":content-type": text("application/json"),
        },
        body: json(value),
      }),
    exception: (type, message) =>
      codec.encode({
        headers: {
          ":message-type": text("exception"),
          ":exception-type": text(type),
          ":content-type": text("application/json"),
        },
        body: json({ message }),
      }),
  };
}
