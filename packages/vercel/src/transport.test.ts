// The fetch handed to the SDK, against a fake base fetch: streamed answers are handed over
// in whole lines (the SDK's NDJSON parser decodes chunk by chunk), and a create or command
// start whose connection failed ends the call instead of being sent again.
import assert from "node:assert/strict";
import { test } from "node:test";
import { guardedFetch, isOutcomeUnknownRequest } from "./transport.js";

const API = "https://vercel.com/api";

/** A streamed answer whose body arrives in the given chunks. */
function streamed(chunks: Uint8Array[], contentType = "application/x-ndjson"): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": contentType } });
}

async function chunksOf(response: Response): Promise<string[]> {
  const seen: string[] = [];
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return seen;
    // Decoding each chunk alone, as the SDK's parser does: any split character would show.
    seen.push(Buffer.from(value).toString("utf8"));
  }
}

test("an NDJSON answer reaches the SDK in whole lines, so no character is split between chunks", async () => {
  const text = `${JSON.stringify({ stream: "stdout", data: "é🚀" })}\n${JSON.stringify({ stream: "stdout", data: "ok" })}\n`;
  const bytes = new TextEncoder().encode(text);
  const cut = bytes.indexOf(0xf0) + 2; // inside the four bytes of 🚀
  const fetch = guardedFetch(async () =>
    streamed([bytes.subarray(0, cut), bytes.subarray(cut, cut + 3), bytes.subarray(cut + 3)]),
  );
  const response = await fetch(`${API}/v2/sandboxes/sessions/s/cmd`, { method: "POST" });
  const chunks = await chunksOf(response);
  assert.equal(chunks.join(""), text);
  assert.ok(
    chunks.every((chunk) => chunk.endsWith("\n")),
    "every chunk ends a line",
  );
  assert.ok(!chunks.join("").includes("\uFFFD"));
  const plain = await guardedFetch(async () => streamed([bytes.subarray(0, cut)], "application/octet-stream"))(
    `${API}/x`,
  );
  assert.equal((await chunksOf(plain)).length, 1, "other answers pass untouched");
});

test("a create or command start whose connection failed is marked unrepeatable; others fail as they are", async () => {
  const failing = guardedFetch(async () => {
    throw new TypeError("fetch failed", { cause: new Error("other side closed") });
  });
  for (const [url, method] of [
    [`${API}/v3/sandboxes?teamId=t`, "POST"],
    [`${API}/v2/sandboxes?teamId=t`, "POST"],
    [`${API}/v2/sandboxes/sessions/sbx_1/cmd?teamId=t`, "POST"],
  ] as const) {
    const error = await fetchError(failing(url, { method }));
    assert.equal(error.name, "AbortError", "the one name the SDK's retry loop does not repeat");
    assert.ok(isOutcomeUnknownRequest(error));
    assert.match(String((error.cause as Error).message), /fetch failed/);
  }
  for (const [url, method] of [
    [`${API}/v2/sandboxes?teamId=t`, "GET"],
    [`${API}/v2/sandboxes/sessions/sbx_1/fs/write`, "POST"],
    [`${API}/v2/sandboxes/sessions/sbx_1/cmd/cmd_1/kill`, "POST"],
  ] as const) {
    const error = await fetchError(failing(url, { method }));
    assert.equal(error.name, "TypeError", `${method} ${url} is repeated by the SDK as usual`);
    assert.equal(isOutcomeUnknownRequest(error), false);
  }
  const aborted = new AbortController();
  aborted.abort(new Error("gave up"));
  const byCaller = await fetchError(failing(`${API}/v3/sandboxes`, { method: "POST", signal: aborted.signal }));
  assert.equal(isOutcomeUnknownRequest(byCaller), false, "an abort stays an abort");
});

async function fetchError(pending: Promise<unknown>): Promise<Error> {
  return pending.then(
    () => assert.fail("the fetch must fail"),
    (error: Error) => error,
  );
}
