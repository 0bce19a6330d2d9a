import assert from "node:assert/strict";
import type { SandboxHandle } from "@sandport/core";
import type { WireFaultContext } from "./fault-context.js";
import { expectTypedFailure } from "./observe.js";

/** The cases that fault the delete request. */
export function declareTeardownCases<H extends SandboxHandle>(context: WireFaultContext<H>): void {
  const { routes } = context.options;
  const times = context.options.attempts?.deleteRefused ?? 1;

  context.case(
    "delete-refused",
    "5xx on delete is typed and retryable; the orchestrator's teardown retries it",
    async () => {
      const { emulator, runtime } = context;
      const handle = await context.launch("delete-refused");
      emulator.injectFault({ route: routes.delete, fault: { kind: "status", status: 502 }, times });
      const refused = expectTypedFailure(await context.call(runtime.destroy(handle), "a refused destroy"), "destroy", [
        "PROVIDER_UNAVAILABLE",
      ]);
      assert.equal(refused.retryable, true);
      emulator.injectFault({ route: routes.delete, fault: { kind: "status", status: 500 }, times });
      const result = await context.run({ launch: { reuse: { id: handle.id } } });
      assert.equal(result.teardown.outcome, "destroyed");
    },
  );

  context.case(
    "delete-lost-response",
    "a delete whose answer is lost resolves once the sandbox is gone, or fails typed and can be repeated",
    async () => {
      const { emulator, runtime } = context;
      const handle = await context.launch("delete-lost-response");
      emulator.injectFault({ route: routes.delete, fault: { kind: "lost-response" } });
      const outcome = await context.call(runtime.destroy(handle), "a destroy whose answer was lost");
      if (!outcome.ok) {
        expectTypedFailure(outcome, "destroy");
        await context.destroy(handle);
      }
      const alive = emulator.liveSandboxes().filter((sandbox) => sandbox.id === handle.id);
      assert.ok(
        alive.every((sandbox) => sandbox.state === "destroying"),
        "a destroy that resolved left the sandbox gone",
      );
    },
  );
}
