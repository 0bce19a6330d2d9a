// examples/failover.ts — E2B first, this machine when E2B cannot take the launch. Here the E2B emulator from
// @sandport/testkit answers every create with 429 (as E2B does at an account's concurrency limit), so the launch
// moves to the local runtime, which has everything the workload uses; the result says where it ran and what it
// used, priced by a table of your own.

import { startE2BEmulator } from "@sandport/testkit/emulators/e2b";
import { SandboxOrchestrator } from "sandport/core";
import { E2BRuntime } from "sandport/e2b";
import { LocalRuntime } from "sandport/local";

const emulator = await startE2BEmulator();
emulator.injectFault({ route: "POST /v2/sandboxes", fault: { kind: "status", status: 429 }, times: 1_000 });
try {
  const e2b = new E2BRuntime({
    apiKey: emulator.apiKey,
    apiUrl: emulator.apiUrl,
    sandboxUrl: emulator.sandboxUrl,
    domain: emulator.domain,
  });
  const orchestrator = new SandboxOrchestrator([e2b, new LocalRuntime()], {
    onEvent: (event) => {
      if (event.type === "failover")
        console.log(`${event.from.provider} said ${event.code}: moved to ${event.to.provider}`);
    },
    // Your own numbers (these are made up): Sandport fetches no price and assumes none.
    prices: { currency: "USD", providers: { e2b: { vcpuSecond: 0.00002 }, local: { sandboxSecond: 0 } } },
  });
  const result = await orchestrator.run({
    launch: { labels: { job: "ci-42" } },
    files: [{ path: "hello.txt", content: "hello from wherever it ran\n" }],
    steps: [{ argv: ["cat", "hello.txt"] }],
  });
  console.log(
    `ran on ${result.runtime?.provider} (runtime ${result.runtime?.index}):`,
    result.steps[0]?.result.stdout.trim(),
  );
  const usage = result.usage;
  console.log(
    `${usage?.execs.count} command, ${usage?.bytesIn.files} bytes in, ${usage?.bytesOut.output} bytes out,`,
    `estimate ${usage?.estimate?.total} ${usage?.estimate?.currency}`,
  );
} finally {
  await emulator.stop();
}
