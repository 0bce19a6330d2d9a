/**
 * Kubernetes label selectors in their string form (`labelSelector=` on a list
 * or watch): `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`, `k notin (a,b)`,
 * requirements joined by commas (AND).
 *
 * @module
 */

import { KubeApiError } from "./status.js";

/** One requirement of a selector. */
type Requirement =
  | { readonly key: string; readonly op: "in" | "notin"; readonly values: readonly string[] }
  | { readonly key: string; readonly op: "exists" | "absent" };

/** A parsed selector: true for a label set that meets every requirement. */
export type LabelMatcher = (labels: Readonly<Record<string, string>>) => boolean;

/** Parse `labelSelector`; an empty or missing selector matches everything. Malformed → 400 BadRequest. */
export function parseLabelSelector(selector: string | null | undefined): LabelMatcher {
  const requirements = splitRequirements(selector ?? "").map(parseRequirement);
  return (labels) => requirements.every((requirement) => meets(requirement, labels));
}

function meets(requirement: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, requirement.key);
  switch (requirement.op) {
    case "exists":
      return has;
    case "absent":
      return !has;
    case "in":
      return has && requirement.values.includes(labels[requirement.key]!);
    case "notin":
      return !has || !requirement.values.includes(labels[requirement.key]!);
  }
}

/** Split on the commas that are not inside a `( ... )` value set. */
function splitRequirements(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const character of selector) {
    if (character === "(") depth += 1;
    if (character === ")") depth -= 1;
    if (character === "," && depth === 0) {
      parts.push(current);
      current = "";
    } else {
      current += character;
    }
  }
  parts.push(current);
  const trimmed = parts.map((part) => part.trim());
  if (trimmed.length === 1 && trimmed[0] === "") return [];
  return trimmed;
}

const KEY = "[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?";
const VALUE = "([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?";
const EQUALITY = new RegExp(`^(${KEY})\\s*(==|=|!=)\\s*(${VALUE})$`);
const SET = new RegExp(`^(${KEY})\\s+(in|notin)\\s*\\(([^)]*)\\)$`);
const EXISTS = new RegExp(`^(!?)\\s*(${KEY})$`);
const VALUE_ONLY = new RegExp(`^${VALUE}$`);

function parseRequirement(text: string): Requirement {
  const equality = EQUALITY.exec(text);
  if (equality) {
    const key = equality[1]!;
    const value = equality[4] ?? "";
    return { key, op: equality[3] === "!=" ? "notin" : "in", values: [value] };
  }
  const set = SET.exec(text);
  if (set) {
    const values = set[4]!.split(",").map((value) => value.trim());
    if (values.some((value) => !VALUE_ONLY.test(value))) throw invalid(text);
    return { key: set[1]!, op: set[3] as "in" | "notin", values };
  }
  const exists = EXISTS.exec(text);
  if (exists) return { key: exists[2]!, op: exists[1] === "!" ? "absent" : "exists" };
  throw invalid(text);
}

function invalid(text: string): KubeApiError {
  return new KubeApiError(400, "BadRequest", `unable to parse requirement: ${JSON.stringify(text)}`);
}
