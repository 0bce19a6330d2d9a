// Options, ownership, refusals and the exec details the conformance suite does not pin down.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { resolveCapabilities, SandportError } from "@sandport/core";
import { CGROUP_PARENTS_FILE } from "./cgroups/cgroup-leftovers.js";
import { buildBwrapInvocation } from "./commands/bwrap.js";
import { type LocalHandle, LocalRuntime, type LocalRuntimeOptions } from "./index.js";
import { bwrapSkipReason, temporaryDirectory } from "./runtime.fixture.js";
import { PROBE_DIRECTORY } from "./store/sandbox-layout.js";

const root = temporaryDirectory("runtime");
after(() => root.remove());
const skipNamespaces = await bwrapSkipReason();
const hasCode = (code: string) => (error: unknown) => SandportError.hasCode(error, code as never);

function runtime(options: LocalRuntimeOptions = {}): LocalRuntime {
  return new LocalRuntime({ root: root.path, isolation: "none", ...options });
}

describe("options", () => {
  test("the constructor creates nothing and refuses bad options with INVALID_REQUEST", () => {
    const missing = join(root.path, "not-created-yet");
    new LocalRuntime({ root: missing, bwrapPath: "/nonexistent/bwrap" });
    assert.equal(existsSync(missing), false);
    for (const bad of [
      { root: "relative/dir" },
      { isolation: "container" },
      { owner: "has space" },
      { runBudgetMs: 0 },
      { killGraceMs: -1 },
      { cgroups: "maybe" },
      { readOnlyPaths: ["relative"] },
      { onEgressRefused: "log" },
      { egressResolver: { "allowed.test": "127.0.0.1" } },
    ]) {
      assert.throws(
        () => new LocalRuntime(bad as LocalRuntimeOptions),
        hasCode("INVALID_REQUEST"),
        JSON.stringify(bad),
      );
    }
  });

  test("readOnlyPaths entries that would be hidden, break the workspace or expose host sockets are refused at construction", () => {
    const refused = [
      ["/", {}, /whole host/],
      ["/tmp", {}, /overlaps \/tmp/],
      ["/tmp/tool", {}, /overlaps \/tmp/],
      ["/opt/../tmp/tool", {}, /overlaps \/tmp/],
      ["/workspace/lib", {}, /workspace root \/workspace/],
      ["/home", { workspaceRoot: "/home/user" }, /workspace root \/home\/user/],
      ["/run", {}, /overlaps \/run.*connect\(\)/],
      ["/run/user/0", {}, /overlaps \/run/],
      ["/var", {}, /overlaps \/var\/run/],
    ] as const;
    for (const [path, extra, message] of refused) {
      assert.throws(
        () => new LocalRuntime({ readOnlyPaths: ["/opt/toolchain", path], ...extra }),
        (error: unknown) =>
          SandportError.hasCode(error, "INVALID_REQUEST") &&
          error.message.includes(JSON.stringify(path)) &&
          message.test(error.message),
        path,
      );
    }
    for (const path of ["/opt/toolchain", "/tmpfs-tools", "/runner/bin", "/workspaces", "/var/lib/tool"]) {
      assert.doesNotThrow(() => new LocalRuntime({ readOnlyPaths: [path] }), path);
    }
  });

  test("a root that cannot be created says which path and how to choose another", async () => {
    // A regular file where a parent directory should be: no one, root included, can create the root.
    writeFileSync(join(root.path, "blocker"), "");
    const unreachable = join(root.path, "blocker", "root");
    const rt = runtime({ root: unreachable });
    await assert.rejects(rt.launch(), (error) => {
      assert.ok(hasCode("UNSUPPORTED")(error));
      assert.ok((error as Error).message.includes(unreachable), (error as Error).message);
      assert.match((error as Error).message, /new LocalRuntime\(\{ root \}\)/);
      return true;
    });
  });

  test("a root whose parent the kernel will not make fails at once, not at the launch deadline", async () => {
    // /proc refuses the parent with ENOENT, on which a recursive mkdir retries forever.
    const rt = runtime({ root: "/proc/sandport-nope/root" });
    await assert.rejects(rt.launch({}, { timeoutMs: 60_000 }), (error) => {
      assert.ok(hasCode("UNSUPPORTED")(error), String(error));
      assert.match((error as Error).message, /cannot create the sandbox root \/proc\/sandport-nope\/root \(ENOENT\)/);
      return true;
    });
  });

  test("capabilities say which isolation is configured", () => {
    assert.equal(resolveCapabilities(runtime({ isolation: "none" })).isolation, "none");
    assert.equal(resolveCapabilities(runtime({ isolation: "namespaces" })).isolation, "namespaces");
    // Where sandboxes can be frozen it depends on the host (see stop-start.test.ts); with cgroups disabled they never are.
    assert.equal(resolveCapabilities(runtime({ cgroups: "disabled" })).lifecycle, "unsupported");
  });

  test("namespaces without a working bubblewrap refuse with UNSUPPORTED, pointing at the opt-in; no downgrade", async () => {
    const rt = runtime({ isolation: "namespaces", bwrapPath: "/nonexistent/bwrap", owner: "no-bwrap" });
    await assert.rejects(rt.launch(), (error) => {
      assert.ok(SandportError.hasCode(error, "UNSUPPORTED"));
      assert.match(error.message, /isolation: "none"/);
      return true;
    });
    assert.deepEqual(await rt.findByLabels({}), [], "nothing was launched");
    // A sandbox made elsewhere cannot be used either: exec refuses rather than running unisolated.
    const working = runtime({ owner: "no-bwrap" });
    const handle = await working.launch();
    await assert.rejects(rt.exec(handle, { argv: ["true"] }), hasCode("UNSUPPORTED"));
    await working.destroy(handle);
  });

  test("templates, and network: false under none, are refused with UNSUPPORTED", async () => {
    await assert.rejects(runtime().launch({ template: "ubuntu" }), hasCode("UNSUPPORTED"));
    await assert.rejects(runtime({ isolation: "none" }).launch({ network: false }), hasCode("UNSUPPORTED"));
  });
});

describe("ownership", () => {
  const alice = runtime({ owner: "alice" });
  const bob = runtime({ owner: "bob" });
  let handle: LocalHandle;

  test("another owner's sandbox is foreign: getById, exec, files and destroy refuse; it is never listed", async () => {
    handle = await alice.launch({ labels: { shared: "label" } });
    await assert.rejects(bob.getById(handle.id), hasCode("FOREIGN_SANDBOX"));
    await assert.rejects(bob.exec(handle, { argv: ["true"] }), hasCode("FOREIGN_SANDBOX"));
    await assert.rejects(bob.readFile(handle, "x"), hasCode("FOREIGN_SANDBOX"));
    await assert.rejects(bob.destroy(handle), hasCode("FOREIGN_SANDBOX"));
    assert.deepEqual(await bob.findByLabels({ shared: "label" }), []);
    assert.equal(existsSync(join(root.path, handle.id)), true, "bob's destroy left it alone");
    assert.equal((await alice.findByLabels({ shared: "label" })).length, 1);
    await alice.destroy(handle);
  });

  test("a directory under the root without Sandport metadata is foreign, and never listed", async () => {
    mkdirSync(join(root.path, "sbx-handmade"));
    await assert.rejects(alice.getById("sbx-handmade"), hasCode("FOREIGN_SANDBOX"));
    const real = await alice.launch();
    const fake: LocalHandle = { ...real, id: "sbx-handmade" };
    await assert.rejects(alice.destroy(fake), hasCode("FOREIGN_SANDBOX"));
    await alice.destroy(real);
    assert.equal(existsSync(join(root.path, "sbx-handmade")), true);
    assert.ok((await alice.findByLabels({})).every((found) => found.id !== "sbx-handmade"));
  });

  test("launch keys are searchable as the reserved label; malformed ids are refused", async () => {
    const launched = await alice.launch({ launchKey: "key-123", labels: { a: "1" } });
    assert.deepEqual(launched.labels, { a: "1" }, "reserved labels stay out of the handle");
    const found = await alice.findByLabels({ "sandport.launch-key": "key-123" });
    assert.deepEqual(
      found.map((item) => item.id),
      [launched.id],
    );
    await assert.rejects(alice.getById("../etc"), hasCode("INVALID_REQUEST"));
    await alice.destroy(launched);
    await alice.destroy(launched); // absent is success
  });
});

describe("exec details", () => {
  for (const isolation of ["namespaces", "none"] as const) {
    const skip = isolation === "namespaces" ? skipNamespaces : undefined;
    test(`the output cap counts stdout and stderr together (${isolation})`, { skip }, async () => {
      const rt = runtime({ isolation });
      const handle = await rt.launch();
      const result = await rt.exec(handle, {
        shell: "head -c 5000 /dev/zero | tr '\\0' o; head -c 5000 /dev/zero | tr '\\0' e >&2",
        maxOutputBytes: 6000,
      });
      assert.equal(result.truncated, true);
      assert.equal(result.stdout.length + result.stderr.length, 6000);
      const uncapped = await rt.exec(handle, { shell: "head -c 5000 /dev/zero | tr '\\0' o", maxOutputBytes: 6000 });
      assert.equal(uncapped.truncated, false);
      assert.equal(uncapped.stdout.length, 5000);
      await rt.destroy(handle);
    });

    test(`a missing program exits 127, as in a shell (${isolation})`, { skip }, async () => {
      const rt = runtime({ isolation });
      const handle = await rt.launch();
      const missing = await rt.exec(handle, { argv: ["no-such-program-x"] });
      assert.equal(missing.exitCode, 127);
      if (isolation === "namespaces") {
        assert.match(missing.stderr, /no-such-program-x: not found inside the sandbox.*readOnlyPaths/s);
      }
      await assert.rejects(rt.exec(handle, { argv: ["true"], cwd: "missing" }), (error) => {
        assert.ok(hasCode("NOT_FOUND")(error));
        assert.match((error as Error).message, /the working directory \/workspace\/missing does not exist/);
        return true;
      });
      await rt.destroy(handle);
    });
  }

  test("env values reach bubblewrap through a pipe, never its command line", () => {
    const invocation = buildBwrapInvocation({
      workspaceDirectory: "/host/ws",
      workspaceRoot: "/workspace",
      cwd: "/workspace",
      network: false,
      readOnlyPaths: [],
      env: { TOKEN: "s3cret" },
      command: ["true"],
    });
    assert.ok(!invocation.args.some((arg) => arg.includes("s3cret")));
    assert.ok(invocation.fd3.toString().includes("TOKEN\u0000s3cret\u0000"));
    for (const flag of ["--cap-drop", "--unshare-all", "--disable-userns", "--die-with-parent", "--clearenv"]) {
      assert.ok(invocation.args.includes(flag), flag);
    }
    assert.ok(!invocation.args.includes("--share-net"));
  });

  test("destroyed sandboxes leave nothing under the root", async () => {
    const rt = runtime({ owner: "tidy" });
    // The root's own bookkeeping (where launching processes keep their cgroups, what the isolation probe binds) is
    // made by the first launch over the root, and stays: it belongs to no sandbox.
    const entries = () =>
      readdirSync(root.path).filter((name) => name !== CGROUP_PARENTS_FILE && name !== PROBE_DIRECTORY);
    const before = entries();
    const handle = await rt.launch();
    await rt.exec(handle, { shell: "mkdir -p deep/tree && echo x > deep/tree/file" });
    await rt.destroy(handle);
    assert.deepEqual(entries(), before);
  });
});
