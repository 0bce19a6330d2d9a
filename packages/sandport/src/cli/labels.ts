import { splitAssignment } from "./providers/option-values.js";

/** `--label K=V` flags as a label map (validated by the runtime, which refuses bad keys with `INVALID_REQUEST`). */
export function parseLabels(flags: readonly string[], flag = "--label"): Record<string, string> {
  return Object.fromEntries(flags.map((text) => splitAssignment(text, flag)));
}
