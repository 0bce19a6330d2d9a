// The large-file row: one 64 MiB file of random bytes written through an adapter and read back, with
// the bytes on the wire (see wire-bytes.mjs) and the wall time of each direction.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mebibytes } from "./report.mjs";

/** The file's size: large enough that per-request costs vanish and the transfer itself shows. */
export const LARGE_FILE_SIZE = 64 * 2 ** 20;

/**
 * Launches, writes one `LARGE_FILE_SIZE` file, reads it back (checking every byte), destroys, and
 * prints the bytes `wireBytes()` grew by and the time of each direction. A refusal (a size limit of
 * the adapter or the API) is the row's answer, printed as such.
 */
export async function largeFile(adapter, runtime, wireBytes) {
  const size = LARGE_FILE_SIZE;
  const content = randomBytes(size);
  const measure = async (work) => {
    const [before, started] = [wireBytes(), performance.now()];
    const value = await work();
    return { value, bytes: wireBytes() - before, ms: performance.now() - started };
  };
  const reason = (error) => `${error?.code ?? error?.name}: ${String(error?.message).split("\n")[0].slice(0, 160)}`;
  let handle;
  let answer;
  try {
    handle = await runtime.launch();
    const write = await measure(() => runtime.writeFiles(handle, [{ path: "large.bin", content }]));
    const read = await measure(() => runtime.readFile(handle, "large.bin"));
    assert.ok(Buffer.from(read.value).equals(content), "the file read back differs from the one written");
    const line = (name, { bytes, ms }) =>
      `  ${name.padEnd(6)} ${mebibytes(bytes).padStart(10)} on the wire (${(bytes / size).toFixed(2)}× the file) in ${Math.round(ms)} ms`;
    console.log(
      [`large file (${mebibytes(size)} of random bytes):`, line("write", write), line("read", read)].join("\n"),
    );
    answer = { adapter, size, write: { bytes: write.bytes, ms: write.ms }, read: { bytes: read.bytes, ms: read.ms } };
  } catch (error) {
    console.log(`large file (${mebibytes(size)}): not transferred, ${reason(error)}`);
    answer = { adapter, size, error: reason(error) };
  }
  if (handle) {
    // A failed transfer can leave the sandbox busy; a destroy that fails then is reported, not thrown,
    // so the rest of the report still prints.
    await runtime.destroy(handle).catch((error) => {
      console.log(`  and its sandbox could not be destroyed: ${reason(error)}`);
      answer.leftBehind = reason(error);
    });
  }
  console.log("");
  return answer;
}
