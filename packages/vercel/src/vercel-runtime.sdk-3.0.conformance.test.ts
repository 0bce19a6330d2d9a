// The shared conformance suite through VercelRuntime and @vercel/sandbox 3.0.0 (the
// oldest in range, installed as vercel-sandbox-3.0), against the Vercel emulator.
import { describeVercelConformance } from "../test/conformance.js";

await describeVercelConformance("3.0");
