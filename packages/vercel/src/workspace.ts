import type { CallTiming } from "./context.js";
import { isAlreadyExists } from "./errors.js";
import type { VercelSandbox } from "./internal/sdk-types.js";

/**
 * Creates one directory whose parent exists (Vercel's `mkdir` is not
 * recursive); one that already exists is fine, so a repeated request is too.
 */
export async function makeDirectory(sandbox: VercelSandbox, path: string, timing: CallTiming): Promise<void> {
  try {
    await sandbox.mkDir(path, { signal: timing.signal });
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
}
