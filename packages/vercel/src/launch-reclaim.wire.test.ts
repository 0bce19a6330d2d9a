// A Vercel launch whose outcome is unknown, through the real @vercel/sandbox SDK and the Vercel
// emulator: cut off by its deadline, by an abort, or by a connection dropped after the create was
// made, it leaves no sandbox once settle() returns; an endpoint that refuses the connection (the
// SDK's requests sent to a closed loopback port) sends nothing.
import { startVercelEmulator } from "@sandport/testkit/emulators/vercel";
import { describeLaunchReclaim } from "@sandport/testkit/faults";
import { emulatorOptions } from "../test/emulated.js";
import { VercelSandboxRuntime } from "./vercel-runtime.js";

/** A `fetch` that sends every request to the same path at `base`. */
function fetchAt(base: string): typeof globalThis.fetch {
  return (input, init) => {
    const original = new URL(input instanceof Request ? input.url : String(input));
    return globalThis.fetch(new URL(`${original.pathname}${original.search}`, base), init);
  };
}

describeLaunchReclaim({
  name: "VercelSandboxRuntime (real @vercel/sandbox SDK → Vercel emulator)",
  start: async () => {
    const emulator = await startVercelEmulator();
    const options = { ...emulatorOptions(emulator), owner: "reclaim-tests" };
    return {
      emulator,
      createRoute: "POST /v3/sandboxes",
      runtime: new VercelSandboxRuntime(options),
      runtimeAt: (url) => new VercelSandboxRuntime({ ...options, fetch: fetchAt(url) }),
    };
  },
});
