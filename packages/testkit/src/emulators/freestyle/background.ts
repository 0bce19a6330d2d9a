/**
 * Background requests: a client that sends `x-freestyle-background-after-secs`
 * asks the API to detach the work from the connection if it outlives that
 * many seconds. Work that finishes in time is answered inline, exactly as
 * without the header; longer work is answered `202 Accepted` with
 * `x-freestyle-background-request-id` (header and `requestId` in the body),
 * and its final answer, success or error, is stored for
 * `GET /v5/background-requests/{id}` (`202` until ready). Stored answers carry
 * the request id header, which tells the SDK a stored error from a transient
 * failure of the polling hop. An answer too large to store is replaced by a
 * `BACKGROUND_RESULT_UNSTORABLE` error (the SDK then re-sends an idempotent GET
 * without the header).
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";
import { randomToken } from "../harness/sandbox-registry.js";
import { ApiError, type ApiReply, errorReplyOf, jsonReply, send } from "./api.js";

/** Header a client asks for backgrounding with. */
export const BACKGROUND_AFTER_HEADER = "x-freestyle-background-after-secs";
/** Header carrying the poll handle on the 202 and on every stored answer. */
export const BACKGROUND_ID_HEADER = "x-freestyle-background-request-id";

/** Settings of {@link BackgroundRequests}. */
export interface BackgroundSettings {
  /** Replaces the client's threshold when set (milliseconds); tests use it to background quickly. */
  readonly afterMs: number | undefined;
  /** How long a finished answer stays available, in milliseconds. */
  readonly retentionMs: number;
  /** Largest stored body, in bytes; a larger answer is stored as `BACKGROUND_RESULT_UNSTORABLE`. */
  readonly maxStoredBytes: number;
}

interface Entry {
  reply: ApiReply | undefined;
  expiry: NodeJS.Timeout | undefined;
}

/** The background requests of one emulator. */
export class BackgroundRequests {
  readonly #settings: BackgroundSettings;
  readonly #entries = new Map<string, Entry>();

  constructor(settings: BackgroundSettings) {
    this.#settings = settings;
  }

  /**
   * The threshold in milliseconds after which this request goes to the
   * background, or `undefined` when the client did not ask for backgrounding.
   */
  thresholdOf(exchange: Exchange): number | undefined {
    const header = exchange.header(BACKGROUND_AFTER_HEADER);
    if (header === undefined || !/^\d{1,6}$/.test(header.trim())) return undefined;
    return this.#settings.afterMs ?? Number(header.trim()) * 1000;
  }

  /**
   * Answer with the work's reply if it is ready within `thresholdMs`, else
   * with 202 and keep the reply for polling. The work must never reject.
   */
  async answer(exchange: Exchange, work: Promise<ApiReply>, thresholdMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), thresholdMs);
    });
    const early = await Promise.race([work, late]);
    clearTimeout(timer);
    if (early !== undefined) {
      send(exchange, early);
      return;
    }
    const id = this.#add(work);
    exchange.json(202, { requestId: id }, { [BACKGROUND_ID_HEADER]: id });
  }

  /** The answer to `GET /v5/background-requests/{id}`: 202 while pending, then the stored answer. */
  poll(id: string): ApiReply {
    const entry = this.#entries.get(id);
    if (!entry) {
      return jsonReply(404, { code: "BACKGROUND_REQUEST_NOT_FOUND", message: `no background request ${id}` });
    }
    if (!entry.reply) return jsonReply(202, { requestId: id }, { [BACKGROUND_ID_HEADER]: id });
    return { ...entry.reply, headers: { ...entry.reply.headers, [BACKGROUND_ID_HEADER]: id } };
  }

  /** Forget every entry and stop their timers. */
  clear(): void {
    for (const entry of this.#entries.values()) clearTimeout(entry.expiry);
    this.#entries.clear();
  }

  #add(work: Promise<ApiReply>): string {
    let id: string;
    do id = `br_${randomToken(20)}`;
    while (this.#entries.has(id));
    const entry: Entry = { reply: undefined, expiry: undefined };
    this.#entries.set(id, entry);
    void work.then((reply) => {
      if (this.#entries.get(id) !== entry) return;
      entry.reply =
        reply.body.length > this.#settings.maxStoredBytes
          ? errorReplyOf(
              new ApiError(
                507,
                "BACKGROUND_RESULT_UNSTORABLE",
                `the result (${reply.body.length} bytes) is too large to store; repeat the request without backgrounding`,
              ),
            )
          : reply;
      entry.expiry = setTimeout(() => this.#entries.delete(id), this.#settings.retentionMs);
      entry.expiry.unref();
    });
    return id;
  }
}
