// Writes a JSON report of the slug cases to the file named on the command line.
import { writeFileSync } from "node:fs";
import { CASES } from "../src/cases.js";
import { slugify } from "../src/slugify.js";

const results = CASES.map(([input, expected]) => ({ input, expected, actual: slugify(input) }));
const passed = results.filter((result) => result.actual === result.expected).length;
writeFileSync(process.argv[2], JSON.stringify({ total: results.length, passed, results }, null, 2));
console.log(`report: ${passed}/${results.length} passed`);
