import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { type EvidenceRecord, parseEvidenceRecord } from "@sandport/core";
import { CliError } from "./cli-error.js";

/** Reads and validates evidence records named by `--evidence`; an unreadable or malformed one is a usage error. */
export async function readEvidenceFiles(cwd: string, files: readonly string[]): Promise<EvidenceRecord[]> {
  return Promise.all(
    files.map(async (file) => {
      try {
        return parseEvidenceRecord(JSON.parse(await readFile(resolve(cwd, file), "utf8")));
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        throw new CliError("UNREADABLE_FILE", `--evidence ${file}: ${why}`, { cause: error });
      }
    }),
  );
}
