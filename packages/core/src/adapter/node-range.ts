/**
 * Whether a Node version (`"20.18.1"`) satisfies a simple range: clauses of
 * `>=`, `>`, `<=`, `<` or `=` versions joined by spaces (all must hold), and
 * alternatives joined by `||`. Enough for `engines.node` fields; anything it
 * cannot read counts as satisfied (the message then does not blame Node).
 */
export function satisfiesNodeRange(version: string, range: string): boolean {
  const current = parse(version);
  if (!current) return true;
  return range.split("||").some((alternative) =>
    alternative
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .every((clause) => {
        const match = /^(>=|<=|>|<|=)?v?(\d+(?:\.\d+){0,2})$/.exec(clause);
        const bound = match ? parse(match[2] as string) : undefined;
        if (!match || !bound) return true;
        const order = compare(current, bound);
        switch (match[1] ?? "=") {
          case ">=":
            return order >= 0;
          case ">":
            return order > 0;
          case "<=":
            return order <= 0;
          case "<":
            return order < 0;
          default:
            return order === 0;
        }
      }),
  );
}

function parse(version: string): [number, number, number] | undefined {
  const parts = version.replace(/^v/, "").split(".").map(Number);
  if (parts.length === 0 || parts.some((part) => !Number.isInteger(part))) return undefined;
  return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0];
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let index = 0; index < 3; index++) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}
