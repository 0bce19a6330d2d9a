// The shared conformance suite through VercelRuntime and the real @vercel/sandbox SDK
// (3.5, the newest in range), against the Vercel emulator from @sandport/testkit (REST,
// NDJSON command logs, tar.gz uploads, preview URLs), backed by real local execution.
import { describeVercelConformance } from "../test/conformance.js";

await describeVercelConformance("3.5");
