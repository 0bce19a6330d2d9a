// Typos are refused by name before any request reaches Agent37: an unknown
// option or request key (with the nearest known key), a number given as a
// string, a set-id file mode. The emulator counts the requests.
import { test } from "node:test";
import { assertTyposRefused } from "@sandport/testkit/conformance";
import { emulated } from "../test/emulated.js";

const { emulator, runtime, runtimeWith } = await emulated({ owner: "typo-tests" });

test("typos in options and requests are refused, naming the key and the nearest one, before any Agent37 request", async () => {
  const handle = await runtime.launch({});
  try {
    await assertTyposRefused({
      runtime,
      handle,
      construct: (extra) => runtimeWith(extra as never),
      optionTypo: ["baseURL", "baseUrl"],
      providerCalls: () => emulator.requests.length,
    });
  } finally {
    await runtime.destroy(handle);
  }
});
