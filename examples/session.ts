// examples/session.ts — hold a sandbox for a scope; `await using` destroys it on the way out.
// TypeScript 5.2+ compiles `await using` (lib "esnext.disposable", or @types/node); Node 24 runs it natively.
import { SandboxOrchestrator } from "sandport/core";
import { LocalRuntime } from "sandport/local";

const orchestrator = new SandboxOrchestrator(new LocalRuntime());

await using session = await orchestrator.session({ labels: { job: "ci-42" } });
const { stdout } = await session.exec({ argv: ["uname", "-s"] });
console.log(`${session.id} runs on ${stdout.trim()}`);
