// Typos refused by LocalRuntime before anything happens: an unknown option or
// request key (with the nearest known key), a number given as a string, a
// set-id file mode. Lives here, beside the local conformance run, because
// testkit already depends on local. "Provider calls" are the sandboxes and
// files the host got: a refused launch leaves no sandbox directory, a refused
// exec no probe file.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { LocalRuntime } from "@sandport/local";
import { assertTyposRefused } from "./index.js";

test("LocalRuntime refuses typos in options and requests, naming the key and the nearest one, before doing anything", async () => {
  const root = mkdtempSync(join(tmpdir(), "sandport-typos-"));
  const options = { root, isolation: "none", owner: "typos" } as const;
  const runtime = new LocalRuntime(options);
  const handle = await runtime.launch({});
  const sandboxes = () => readdirSync(root, { recursive: true }).length;
  try {
    await assertTyposRefused({
      runtime,
      handle,
      construct: (extra) => new LocalRuntime({ ...options, ...extra }),
      optionTypo: ["roto", "root"],
      providerCalls: sandboxes,
    });
  } finally {
    await runtime.destroy(handle);
    rmSync(root, { recursive: true, force: true });
  }
});
