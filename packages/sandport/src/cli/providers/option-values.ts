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

/**
 * The constructor's options object from the resolved values: a dotted name
 * (`backend.apiKey`) becomes a field of a nested object (`{ backend: { apiKey } }`).
 */
export function nestOptions(values: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    const path = name.split(".");
    let target = options;
    for (const part of path.slice(0, -1)) {
      const next = target[part];
      const child = typeof next === "object" && next !== null ? (next as Record<string, unknown>) : {};
      target[part] = child;
      target = child;
    }
    target[path.at(-1)!] = value;
  }
  return options;
}
