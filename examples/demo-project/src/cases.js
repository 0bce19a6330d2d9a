/** Inputs and expected slugs, shared by the tests and the report. */
export const CASES = [
  ["Hello, World!", "hello-world"],
  ["  Sandport  runs   sandboxes ", "sandport-runs-sandboxes"],
  ["Crème brûlée", "creme-brulee"],
  ["100% ready", "100-ready"],
  ["---", ""],
];
