/** ANSI escape sequences (colours), which take no room on screen. */
const ANSI = /\u001b\[[0-9;]*m/g;

/** Width of `text` on screen: its characters without colour codes. */
export function visibleWidth(text: string): number {
  return [...text.replace(ANSI, "")].length;
}

/**
 * Renders rows as an aligned plain-text table: a header, a rule, then one line
 * per row, columns separated by two spaces. Cells may carry colour codes.
 */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) =>
    Math.max(visibleWidth(title), ...rows.map((row) => visibleWidth(row[column] ?? ""))),
  );
  const format = (cells: readonly string[]) =>
    cells
      .map((cell, column) =>
        column === cells.length - 1 ? cell : cell + " ".repeat((widths[column] ?? 0) - visibleWidth(cell)),
      )
      .join("  ")
      .trimEnd();
  const rule = widths.map((width) => "-".repeat(width)).join("  ");
  return [format(header), rule, ...rows.map(format)].join("\n");
}
