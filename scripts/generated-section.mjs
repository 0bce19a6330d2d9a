// A section of a Markdown file that a script generates: the text between a start and an end marker.
// The capability table and the package map use it, each with their own markers.
import { readFileSync, writeFileSync } from "node:fs";

/**
 * `text` with what lies between `start` and `end` replaced by `content`. Throws when the markers
 * are missing or out of order, naming `file`.
 */
export function replaceSection(text, { start, end, content, file }) {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${file} lacks the markers ${start} … ${end}`);
  return `${text.slice(0, from + start.length)}\n${content}\n${text.slice(to)}`;
}

/**
 * Writes (`mode` "write") or checks (`mode` "check") the section in each file; returns the files
 * whose section was stale (for "check": not changed; for "write": rewritten).
 */
export function updateSections(files, { start, end, content, mode }) {
  const stale = [];
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const updated = replaceSection(text, { start, end, content, file });
    if (updated === text) continue;
    stale.push(file);
    if (mode === "write") writeFileSync(file, updated);
  }
  return stale;
}
