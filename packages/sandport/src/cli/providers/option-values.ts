import { CliError } from "../cli-error.js";
import type { OptionSpec } from "./descriptor.js";

/**
 * Reads the text of one option (from its environment variable or `--option`)
 * as its declared type. `source` names where it came from, for the message;
 * a secret's value is never quoted back.
 */
export function readOptionValue(spec: OptionSpec, text: string, source: string): unknown {
  const shown = spec.secret ? "its value" : JSON.stringify(text);
  const refuse = (why: string) => new CliError("BAD_OPTION", `${source}: ${shown} ${why}`);
  switch (spec.type) {
    case "integer": {
      if (!/^-?\d+$/.test(text.trim())) throw refuse("is not an integer");
      return Number(text.trim());
    }
    case "boolean": {
      const value = text.trim().toLowerCase();
      if (value === "true" || value === "1") return true;
      if (value === "false" || value === "0") return false;
      throw refuse("is not true or false");
    }
    case "list":
      return text
        .split(",")
        .map((item) => item.trim())
        .filter((item) => item !== "");
    default:
      return text;
  }
}

/** Splits `KEY=VALUE` (the value may contain `=`); `flag` names the flag in the message. */
export function splitAssignment(text: string, flag: string): [string, string] {
  const at = text.indexOf("=");
  if (at <= 0) throw new CliError("USAGE", `${flag} expects KEY=VALUE, got ${JSON.stringify(text)}`);
  return [text.slice(0, at), text.slice(at + 1)];
}
