import { invalidRequest } from "../errors/factories.js";

/**
 * Every key of `T` mapped to `true`: the argument of {@link keyList}. Being a
 * mapped type over `keyof T`, an object literal of this type must name every
 * key of the interface and no other, so a list built from it cannot drift from
 * the interface it describes (a key added to one and not the other fails the build).
 */
export type KeyShape<T> = { readonly [K in keyof T]-?: true };

/**
 * The known keys of an option or request shape, from a {@link KeyShape}
 * literal kept next to the type: `keyList<OpOptions>({ signal: true, timeoutMs: true })`.
 */
export function keyList<T>(shape: KeyShape<T>): readonly (keyof T & string)[] {
  return Object.freeze(Object.keys(shape)) as readonly (keyof T & string)[];
}

/**
 * Refuses an option or request object carrying a key its shape does not have
 * (a typo such as `tiemoutMs` would otherwise be ignored silently):
 * `INVALID_REQUEST` naming the key and the nearest known key, `details.field`
 * the key and `details.nearest` the suggestion. Only the object's own keys are
 * checked, never the maps inside it (`env`, `labels`), which hold the caller's names.
 *
 * @param where what the object is, as the message's subject (`"exec request"`, `"LocalRuntime options"`)
 */
export function refuseUnknownKeys(value: object, known: readonly string[], where: string, provider?: string): void {
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const nearest = nearestKey(key, known);
    const hint = nearest === undefined ? `known keys: ${known.join(", ")}` : `did you mean ${nearest}?`;
    throw invalidRequest(
      `${where}: unknown key ${JSON.stringify(key)} (${hint})`,
      { field: key, ...(nearest === undefined ? {} : { nearest }), known: [...known] },
      provider,
    );
  }
}

/**
 * The check every option and request shape opens with: refuses a value that
 * is not an object (`<where> must be an object`), then an unknown key in it
 * ({@link refuseUnknownKeys}). Both `INVALID_REQUEST`.
 */
export function refuseUnknownShape(value: unknown, known: readonly string[], where: string, provider?: string): void {
  if (typeof value !== "object" || value === null) throw invalidRequest(`${where} must be an object`, {}, provider);
  refuseUnknownKeys(value, known, where, provider);
}

/**
 * The known key closest to `key` by edit distance (insertions, deletions,
 * substitutions and swaps of neighbours, ignoring case), when it is close
 * enough to be a typo of it: at most a third of the key's length, and at least
 * one edit. `undefined` when none is.
 */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  const limit = Math.max(1, Math.floor(key.length / 3));
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const distance = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/** Optimal string alignment distance: Levenshtein plus the swap of two neighbouring characters as one edit. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        distance = Math.min(distance, rows[i - 2]![j - 2]! + 1);
      }
      rows[i]![j] = distance;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * How a wrongly typed value is named in an error: its type and, for a
 * primitive, the value itself, so `"1000"` (a string) reads differently from `1000`:
 * `string "1000"`, `number -1`, `boolean true`, `null`, `array`, `object`.
 */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "string") return `string ${JSON.stringify(value)}`;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") {
    return `${typeof value} ${String(value)}`;
  }
  return typeof value;
}
