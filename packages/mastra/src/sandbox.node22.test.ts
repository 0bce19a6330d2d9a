// The Mastra sandbox over a real LocalRuntime: acquisition, commands, files, ports, processes.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  LocalSandbox,
  PermissionError,
  SandboxAbortError,
  SandboxUnsupportedFeatureError,
  Workspace,
} from "@mastra/core/workspace";
import { type SandboxHandle, SandportError } from "@sandport/core";
import { waitFor } from "@sandport/testkit/assertions";
import {
  type LocalTestRuntime,
  localTestRuntime,
  namespacesSkipReason,
  RecordingRuntime,
  withoutMethods,
} from "@sandport/testkit/fakes";
import { SANDBOX_ID_LABEL } from "./options.js";
import { createMastraSandbox } from "./sandbox.js";

/** Why the tests that assert what only a namespaced sandbox shows (its `/workspace`, its loopback) skip here, if they do. */
const namespacesOnly = await namespacesSkipReason();

let local: LocalTestRuntime;
before(async () => {
  local = await localTestRuntime("mastra-sandbox");
});
after(() => local.cleanup());

describe("createMastraSandbox", () => {
  test("start launches a sandbox labelled with the id; a second sandbox with that id adopts it; destroy removes it", async () => {
    const first = await createMastraSandbox({ runtime: local.runtime, id: "mastra-one" });
    await first.start?.();
    assert.equal(first.status, "running");
    const handle = await first.sandboxHandle();
    assert.equal(handle.labels[SANDBOX_ID_LABEL], "mastra-one");
    const again = await createMastraSandbox({ runtime: local.runtime, id: "mastra-one" });
    assert.equal((await again.sandboxHandle()).id, handle.id);
    const given = await createMastraSandbox({ runtime: local.runtime, handle });
    assert.equal((await given.sandboxHandle()).id, handle.id);
    await again.destroy?.();
    assert.equal(await local.runtime.getById(handle.id), undefined);
  });

  test("executeCommand: args quoted, cwd, the env overlay under the call's env, exit codes, timeout, abort", {
    skip: namespacesOnly,
  }, async () => {
    const sandbox = await createMastraSandbox({ runtime: local.runtime, env: { BASE: "base", WHO: "overlay" } });
    try {
      sandbox.setEnv?.((env) => ({ ...env, EXTRA: "set" }));
      const echoed = await sandbox.executeCommand!("printf '%s|'", ["a b", "$HOME", "it's"]);
      assert.equal(echoed.stdout, "a b|$HOME|it's|");
      await sandbox.writeFiles!([{ path: "sub/x.txt", content: "x" }]);
      const env = await sandbox.executeCommand!('pwd; echo "$BASE $WHO $EXTRA"; exit 2', [], {
        cwd: "sub",
        env: { WHO: "call" },
      });
      assert.equal(env.stdout, `${local.runtime.workspaceRoot}/sub\nbase call set\n`);
      assert.deepEqual([env.exitCode, env.success, env.killed, env.timedOut], [2, false, false, false]);
      const slow = await sandbox.executeCommand!("sleep 5", [], { timeout: 200 });
      assert.deepEqual([slow.exitCode, slow.timedOut], [124, true]);
      const streamed: string[] = [];
      await sandbox.executeCommand!("echo one; echo two >&2", [], {
        onStdout: (data) => streamed.push(`out:${data}`),
        onStderr: (data) => streamed.push(`err:${data}`),
      });
      assert.deepEqual(streamed.sort(), ["err:two\n", "out:one\n"]);
      const controller = new AbortController();
      const pending = sandbox.executeCommand!("sleep 5", [], { abortSignal: controller.signal });
      setTimeout(() => controller.abort(new Error("stop")), 100);
      await assert.rejects(pending, SandboxAbortError);
    } finally {
      await sandbox.destroy?.();
    }
  });

  test("stop: its processes end and its status is the one Mastra's LocalSandbox has after stop; a call then starts the same sandbox", async () => {
    const base = mkdtempSync(join(tmpdir(), "sandport-mastra-local-sandbox-"));
    const mastraOwn = new LocalSandbox({ workingDirectory: base });
    const sandbox = await createMastraSandbox({ runtime: local.runtime });
    try {
      const handle = await sandbox.sandboxHandle();
      const sleeper = await sandbox.processes!.spawn("echo up; sleep 30", { stdinMode: "ignore" });
      await waitFor(() => sleeper.stdout.includes("up"), { what: "the process to run" });
      // A Workspace stops its sandbox through Mastra's lifecycle wrapper, as Mastra.shutdown() does.
      const workspaces = [mastraOwn, sandbox].map((each) => new Workspace({ sandbox: each }));
      for (const workspace of workspaces) await workspace.init();
      for (const workspace of workspaces) await workspace.stop();
      assert.equal(mastraOwn.status, "stopped");
      assert.equal(sandbox.status, mastraOwn.status);
      assert.equal(sleeper.exitCode, 137);
      assert.equal((await sandbox.executeCommand!("echo again")).stdout, "again\n");
      assert.equal(sandbox.status, "running");
      assert.equal((await sandbox.sandboxHandle()).id, handle.id);
      // Called directly, stop leaves the same status.
      await sandbox.stop?.();
      assert.equal(sandbox.status, "stopped");
    } finally {
      await sandbox.destroy?.();
      rmSync(base, { recursive: true, force: true });
    }
  });

  test("stop on a runtime that can stop a sandbox stops it, and the next start resumes it with the port's start", async () => {
    const calls: string[] = [];
    const pausable = new Proxy(local.runtime, {
      get(target, key) {
        if (key === "stop" || key === "start")
          return async (handle: SandboxHandle) => calls.push(`${key} ${handle.id}`);
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const sandbox = await createMastraSandbox({ runtime: pausable });
    try {
      const { id } = await sandbox.sandboxHandle();
      await sandbox.stop?.();
      assert.deepEqual([sandbox.status, calls], ["stopped", [`stop ${id}`]]);
      assert.equal((await sandbox.executeCommand!("echo back")).stdout, "back\n");
      assert.deepEqual([sandbox.status, calls], ["running", [`stop ${id}`, `start ${id}`]]);
    } finally {
      await sandbox.destroy?.();
    }
  });

  test("a command runs in any directory of the sandbox (/tmp); a missing one is NOT_FOUND; a file outside the workspace is PermissionError", async () => {
    const refused = (path: string) => (error: unknown) =>
      error instanceof PermissionError && error.path === path && SandportError.hasCode(error.cause, "INVALID_REQUEST");
    const missing = (cwd: string) => (error: unknown) =>
      SandportError.hasCode(error, "NOT_FOUND") && error.details.cwd === cwd;
    for (const runtime of [local.runtime, withoutMethods(local.runtime, ["spawn"])]) {
      const sandbox = await createMastraSandbox({ runtime });
      try {
        assert.equal((await sandbox.executeCommand!("pwd", [], { cwd: "/tmp" })).stdout, "/tmp\n");
        assert.equal((await (await sandbox.processes!.spawn("pwd", { cwd: "/tmp" })).wait()).stdout, "/tmp\n");
        await assert.rejects(
          sandbox.executeCommand!("pwd", [], { cwd: "/tmp/no-such-dir" }),
          missing("/tmp/no-such-dir"),
        );
        await assert.rejects(sandbox.processes!.spawn("pwd", { cwd: "/tmp/no-such-dir" }), missing("/tmp/no-such-dir"));
        await assert.rejects(
          sandbox.writeFiles!([
            { path: "in.txt", content: "in" },
            { path: "/etc/out.txt", content: "out" },
          ]),
          refused("/etc/out.txt"),
        );
      } finally {
        await sandbox.destroy?.();
      }
    }
  });

  test("networking: a declared port whose endpoint needs headers is refused (a bare URL cannot carry them), an undeclared one null", {
    skip: namespacesOnly,
  }, async () => {
    const sandbox = await createMastraSandbox({ runtime: local.runtime, launch: { ports: [8123] } });
    try {
      await sandbox.start?.();
      // The local runtime's endpoints carry a credential header; Mastra's getPortUrl returns a URL alone.
      await assert.rejects(async () => await sandbox.networking?.getPortUrl(8123), {
        name: "SandboxUnsupportedFeatureError",
        message: /needs request headers/,
      });
      assert.equal(await sandbox.networking?.getPortUrl(9999), null);
    } finally {
      await sandbox.destroy?.();
    }
  });

  test("a runtime without spawn, async commands or portEndpoint has no processes and no networking", async () => {
    const sandbox = await createMastraSandbox({ runtime: new RecordingRuntime() });
    assert.equal(sandbox.processes, undefined);
    assert.equal(sandbox.networking, undefined);
    assert.equal((await sandbox.executeCommand!("echo hi")).stdout, "hi\n");
    await sandbox.destroy?.();
  });

  test("a launch.network the runtime cannot enforce is Mastra's SandboxUnsupportedFeatureError at start, nothing launched", async () => {
    // Under isolation "none" commands always have the host's network: the runtime enforces no policy.
    const plain = await localTestRuntime("mastra-network-none", { isolation: "none" });
    try {
      const sandbox = await createMastraSandbox({
        runtime: plain.runtime,
        launch: { network: { allow: ["api.example.com"] } },
      });
      await assert.rejects(
        async () => await sandbox.start?.(),
        (error: unknown) => {
          assert.ok(error instanceof SandboxUnsupportedFeatureError, String(error));
          assert.ok(SandportError.hasCode(error.cause, "UNSUPPORTED"), "the runtime's refusal is the cause");
          return true;
        },
      );
      assert.deepEqual(await plain.runtime.findByLabels({}), [], "no sandbox was created");
    } finally {
      await plain.cleanup();
    }
  });
});

describe("the process manager", () => {
  test("over spawn: live output, stdin, kill, list", async () => {
    const sandbox = await createMastraSandbox({ runtime: local.runtime });
    try {
      const processes = sandbox.processes!;
      const cat = await processes.spawn("tr a-z A-Z");
      await cat.sendStdin("hello\n");
      await cat.closeStdin();
      const done = await cat.wait();
      assert.deepEqual([done.exitCode, done.stdout], [0, "HELLO\n"]);
      const sleeper = await processes.spawn("echo started; sleep 30", { stdinMode: "ignore" });
      await waitFor(() => sleeper.stdout.includes("started"), { what: "the output while it runs" });
      const listed = await processes.list();
      assert.ok(listed.some((info) => info.pid === sleeper.pid && info.running));
      assert.equal(await processes.kill(sleeper.pid), true);
      assert.equal(sleeper.exitCode, 137);
    } finally {
      await sandbox.destroy?.();
    }
  });

  test("over async commands (a runtime without spawn): polled output; stdin and kill are unsupported", async () => {
    const sandbox = await createMastraSandbox({ runtime: withoutMethods(local.runtime, ["spawn"]) });
    try {
      const seen: string[] = [];
      // The command waits for a file only a second command writes, once the first line has arrived.
      const handle = await sandbox.processes!.spawn(
        "echo one; until [ -e go ]; do sleep 0.05; done; echo two; exit 3",
        {
          onStdout: (data) => seen.push(data),
        },
      );
      await assert.rejects(handle.sendStdin("x"), SandboxUnsupportedFeatureError);
      await assert.rejects(handle.kill(), SandboxUnsupportedFeatureError);
      await waitFor(() => seen.join("") === "one\n", { what: "the first line while the command runs" });
      assert.equal((await (await sandbox.processes!.spawn("touch go")).wait()).exitCode, 0);
      const result = await handle.wait();
      assert.deepEqual([result.exitCode, result.stdout, handle.exitCode], [3, "one\ntwo\n", 3]);
      assert.equal(seen.join(""), "one\ntwo\n");
    } finally {
      await sandbox.destroy?.();
    }
  });
});
