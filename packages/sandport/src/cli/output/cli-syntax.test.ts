// The runtimes' hints, which name their constructors for library users, as the command line prints them.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { UMBRELLA } from "../cli.fixture.js";
import { parseDescriptor } from "../providers/descriptor.js";
import { CliSyntax } from "./cli-syntax.js";

/** The rewriter, knowing the real descriptors of the local and microsandbox packages. */
function syntax(): CliSyntax {
  const rewriter = new CliSyntax();
  for (const name of ["local", "microsandbox"]) {
    const path = join(UMBRELLA, "..", name, "package.json");
    const descriptor = parseDescriptor(JSON.parse(readFileSync(path, "utf8")), path);
    assert.ok(descriptor);
    rewriter.add(descriptor);
  }
  return rewriter;
}

describe("CliSyntax", () => {
  test("a constructor call becomes the --option flags that set the same options", () => {
    const rewrite = (text: string) => syntax().rewrite(text);
    assert.equal(
      rewrite('or opt in to unisolated host processes with new LocalRuntime({ isolation: "none" })'),
      "or opt in to unisolated host processes with --option isolation=none",
    );
    assert.equal(
      rewrite('mount its directory read-only: new LocalRuntime({ readOnlyPaths: ["/opt/tool", "/srv/bin"] })\n'),
      "mount its directory read-only: --option readOnlyPaths=/opt/tool,/srv/bin\n",
    );
    assert.equal(
      rewrite("choose a writable directory with new LocalRuntime({ root })"),
      "choose a writable directory with --option root=<root>",
    );
    assert.equal(rewrite('new LocalRuntime({ owner: "ci" })'), "--owner ci");
  });

  test("an option named in a refusal is the flag, with its environment variable", () => {
    const rewrite = (text: string) => syntax().rewrite(text);
    assert.equal(
      rewrite("LocalRuntime option killGraceMs must be an integer from 0 to 60000"),
      "--option killGraceMs (SANDPORT_LOCAL_KILL_GRACE_MS) must be an integer from 0 to 60000",
    );
    assert.equal(
      rewrite("MicrosandboxRuntime option backend.url must be a URL"),
      "--option backend.url (SANDPORT_MICROSANDBOX_URL) must be a URL",
    );
  });

  test("what the command line cannot set, and runtimes it does not know, are left as they are", () => {
    const rewrite = (text: string) => syntax().rewrite(text);
    for (const text of [
      "new LocalRuntime({ sandboxUser: { uid: 1000 } })",
      'new LocalRuntime({ isolation: "none", sandboxUser: 1000 })',
      "LocalRuntime option sandboxUser must be an object",
      'new E2BRuntime({ apiKey: "x" })',
      "nothing to do here",
    ]) {
      assert.equal(rewrite(text), text);
    }
    assert.equal(
      new CliSyntax().rewrite('new LocalRuntime({ isolation: "none" })'),
      'new LocalRuntime({ isolation: "none" })',
    );
  });
});
