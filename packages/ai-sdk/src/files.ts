import { invalidRequest, SandportError, whenFound } from "@sandport/core";
import { opOptions, resolvePath, type SessionContext } from "./session-context.js";

/** The options every read, write, stat, list and delete takes. */
export interface PathRequest {
  readonly path: string;
  readonly abortSignal?: AbortSignal;
}

/** `readBinaryFile`: the file's bytes, or `null` when it does not exist (`NOT_FOUND`). */
export async function readBinaryFile(context: SessionContext, request: PathRequest): Promise<Uint8Array | null> {
  const path = resolvePath(context, request.path);
  return (await whenFound(context.runtime.readFile(context.handle, path, opOptions(request.abortSignal)))) ?? null;
}

/** `readFile`: the file as a byte stream. The port reads whole files, so the stream has one chunk. */
export async function readFileStream(
  context: SessionContext,
  request: PathRequest,
): Promise<ReadableStream<Uint8Array> | null> {
  const bytes = await readBinaryFile(context, request);
  if (bytes === null) return null;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}

/** `readTextFile`: decoded (UTF-8 unless told), then cut to the 1-based inclusive line range. */
export async function readTextFile(
  context: SessionContext,
  request: PathRequest & { encoding?: string; startLine?: number; endLine?: number },
): Promise<string | null> {
  const decoder = textDecoder(request.encoding ?? "utf-8");
  const bytes = await readBinaryFile(context, request);
  if (bytes === null) return null;
  return extractLines(decoder.decode(bytes), request.startLine, request.endLine);
}

/** `writeBinaryFile`: the bytes exactly, parents created, an existing file replaced. */
export async function writeBinaryFile(
  context: SessionContext,
  request: PathRequest & { content: Uint8Array },
): Promise<void> {
  const path = resolvePath(context, request.path);
  await context.runtime.writeFiles(
    context.handle,
    [{ path, content: request.content }],
    opOptions(request.abortSignal),
  );
}

/** `writeTextFile`: the text encoded (UTF-8 unless told), then written as bytes. */
export async function writeTextFile(
  context: SessionContext,
  request: PathRequest & { content: string; encoding?: string },
): Promise<void> {
  const encoding = request.encoding ?? "utf-8";
  if (!Buffer.isEncoding(encoding)) throw invalidRequest(`writeTextFile: unknown encoding ${JSON.stringify(encoding)}`);
  const content = new Uint8Array(Buffer.from(request.content, encoding));
  await writeBinaryFile(context, { ...request, content });
}

/** `writeFile`: the stream read to its end, then written; nothing is written if the stream fails. */
export async function writeFileStream(
  context: SessionContext,
  request: PathRequest & { content: ReadableStream<Uint8Array> },
): Promise<void> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of request.content) chunks.push(chunk);
  await writeBinaryFile(context, { ...request, content: new Uint8Array(Buffer.concat(chunks)) });
}

function textDecoder(encoding: string): InstanceType<typeof TextDecoder> {
  try {
    return new TextDecoder(encoding);
  } catch (error) {
    throw new SandportError({
      code: "INVALID_REQUEST",
      message: `readTextFile: unknown encoding ${JSON.stringify(encoding)}`,
      cause: error,
    });
  }
}

/** Lines `startLine` to `endLine` (1-based, inclusive), split and joined on the text's own line ending. */
function extractLines(text: string, startLine: number | undefined, endLine: number | undefined): string {
  if (startLine === undefined && endLine === undefined) return text;
  const ending = text.includes("\r\n") ? "\r\n" : text.includes("\n") ? "\n" : text.includes("\r") ? "\r" : "\n";
  const lines = text.split(ending);
  const start = Math.max(1, startLine ?? 1) - 1;
  const end = Math.min(lines.length, endLine ?? lines.length);
  return lines.slice(start, end).join(ending);
}
