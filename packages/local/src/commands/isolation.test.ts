// What isolation actually guarantees, proven against real processes, with a control run for each
// claim showing that the check would catch a violation.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { after, before, describe, test } from "node:test";
import { SandportError } from "@sandport/core";
import { LocalRuntime, type LocalRuntimeOptions } from "../index.js";
import {
  bwrapSkipReason,
  ENTRY,
  killProcessesWithArgument,
  processesWithArgument,
  runNodeChild,
  temporaryDirectory,
  uniqueSleep,
  waitFor,
} from "../runtime.fixture.js";

const skipNamespaces = await bwrapSkipReason();
const root = temporaryDirectory("isolation");
after(() => root.remove());

function runtime(options: LocalRuntimeOptions = {}): LocalRuntime {
  return new LocalRuntime({ root: root.path, killGraceMs: 100, ...options });
}

describe("namespaces: confinement", { skip: skipNamespaces }, () => {
  const isolated = runtime({ isolation: "namespaces" });
  const outside = temporaryDirectory("outside");
  after(() => outside.remove());

  test("a command cannot write outside the workspace; the same command under none can", async () => {
    const target = `${outside.path}/escaped`;
    const script = [
      `touch ${target}`,
      "touch /etc/sandport-x /usr/sandport-x /sandport-x /dev/sandport-x /dev/shm/sandport-x",
      "echo inside > /workspace/inside.txt",
    ].join("; ");
    const handle = await isolated.launch();
    const result = await isolated.exec(handle, { shell: script });
    assert.equal(existsSync(target), false, "a host directory outside the workspace stayed untouched");
    for (const path of ["/etc/sandport-x", "/usr/sandport-x", "/sandport-x", "/dev/sandport-x"]) {
      assert.equal(existsSync(path), false, `${path} was not created on the host`);
    }
    assert.match(result.stderr, /Read-only file system|No such file or directory|Permission denied/);
    assert.equal(new TextDecoder().decode(await isolated.readFile(handle, "inside.txt")), "inside\n");
    assert.equal(result.isolation, "namespaces");

    const plain = runtime({ isolation: "none" });
    const control = await plain.launch();
    await plain.exec(control, { shell: `touch ${target}` });
    assert.equal(existsSync(target), true, "control: without isolation the same write lands on the host");
    await Promise.all([isolated.destroy(handle), plain.destroy(control)]);
  });

  test("capabilities are dropped: CapEff is 0 and remounting /usr read-write is refused", async () => {
    const handle = await isolated.launch();
    const result = await isolated.exec(handle, {
      shell: "grep CapEff /proc/self/status; mount -o remount,bind,rw /usr 2>&1 && echo REMOUNTED",
    });
    assert.match(result.stdout, /CapEff:\s+0000000000000000/);
    assert.doesNotMatch(result.stdout, /REMOUNTED/);
    await isolated.destroy(handle);
  });

  describe("network", () => {
    let server: Server;
    let port = 0;
    before(async () => {
      server = createServer((socket) => socket.end("host-ok\n"));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      port = (server.address() as { port: number }).port;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const probe = () =>
      `node -e "require('net').connect(${port},'127.0.0.1').on('data',d=>{process.stdout.write('REACHED '+d);process.exit(0)}).on('error',e=>{console.log('FAILED',e.code);process.exit(3)})"`;

    test("without network, a server on the host's 127.0.0.1 is unreachable", async () => {
      const handle = await isolated.launch();
      assert.equal(handle.network, false);
      const result = await isolated.exec(handle, { shell: probe(), timeoutMs: 20_000 });
      assert.doesNotMatch(result.stdout, /REACHED/);
      assert.match(result.stdout, /FAILED (ECONNREFUSED|ENETUNREACH)/);
      await isolated.destroy(handle);
    });

    test('with network: "all", still unreachable: the sandbox reaches out only through the egress proxy', async () => {
      const handle = await isolated.launch({ network: true });
      assert.equal(handle.network, false);
      const result = await isolated.exec(handle, { shell: probe(), timeoutMs: 20_000 });
      assert.doesNotMatch(result.stdout, /REACHED/);
      await isolated.destroy(handle);
    });

    test("control: with hostNetwork and network: true the same probe reaches it", async () => {
      const sharing = runtime({ isolation: "namespaces", hostNetwork: true });
      const handle = await sharing.launch({ network: true });
      assert.equal(handle.network, true);
      const result = await sharing.exec(handle, { shell: probe(), timeoutMs: 20_000 });
      assert.match(result.stdout, /REACHED host-ok/);
      await sharing.destroy(handle);
    });
  });
});

describe("environment", () => {
  // The secret is set in a child process's environment, which then drives the runtime:
  // the library must not pass any of its own process's environment on.
  for (const isolation of ["namespaces", "none"] as const) {
    test(`a parent variable SECRET=x is invisible inside (${isolation})`, {
      skip: isolation === "namespaces" ? skipNamespaces : undefined,
    }, async () => {
      const script = `
        import { env } from "node:process";
        import { LocalRuntime } from ${JSON.stringify(ENTRY)};
        const runtime = new LocalRuntime({ root: ${JSON.stringify(root.path)}, isolation: "${isolation}" });
        const handle = await runtime.launch({ env: { FROM_LAUNCH: "1" } });
        const result = await runtime.exec(handle, { argv: ["env"], env: { FROM_REQUEST: "2" } });
        await runtime.destroy(handle);
        console.log(JSON.stringify({ parentSees: env.SECRET, inside: result.stdout }));
      `;
      const child = await runNodeChild(script, { SECRET: "x" });
      assert.equal(child.code, 0, child.stderr);
      const { parentSees, inside } = JSON.parse(child.stdout) as { parentSees: string; inside: string };
      assert.equal(parentSees, "x", "control: the driving process does have SECRET");
      const names = inside
        .trim()
        .split("\n")
        .map((line) => line.split("=")[0])
        .sort();
      assert.ok(!names.includes("SECRET"));
      // Under namespaces bubblewrap sets PWD; under none an argv command is spawned directly, with
      // the command marker as the one variable Sandport adds.
      const expected =
        isolation === "namespaces"
          ? ["FROM_LAUNCH", "FROM_REQUEST", "HOME", "PATH", "PWD", "TMPDIR"]
          : ["FROM_LAUNCH", "FROM_REQUEST", "HOME", "PATH", "SANDPORT_LOCAL_COMMAND_ID", "TMPDIR"];
      assert.deepEqual(names, expected);
    });
  }
});

describe("process trees", () => {
  for (const isolation of ["namespaces", "none"] as const) {
    const skip = isolation === "namespaces" ? skipNamespaces : undefined;

    test(`a 500 ms timeout leaves no survivor of 'sleep & setsid sleep & wait' (${isolation})`, { skip }, async () => {
      const rt = runtime({ isolation });
      const handle = await rt.launch();
      const marker = uniqueSleep();
      try {
        const result = await rt.exec(handle, {
          shell: `sleep ${marker} & setsid sleep ${marker} & (setsid sh -c 'sleep ${marker} &') ; wait`,
          timeoutMs: 500,
        });
        assert.equal(result.timedOut, true);
        assert.equal(result.exitCode, null);
        assert.ok(await waitFor(() => processesWithArgument(marker).length === 0, 3_000), "survivors remain");
      } finally {
        killProcessesWithArgument(marker);
        await rt.destroy(handle);
      }
    });

    test(`a command that exits leaves no survivor of 'sleep & setsid sleep &' (${isolation})`, { skip }, async () => {
      const rt = runtime({ isolation });
      const handle = await rt.launch();
      const marker = uniqueSleep();
      try {
        // Exits 0 once all three run, leaving them behind.
        const result = await rt.exec(handle, {
          shell: `sleep ${marker} & setsid sleep ${marker} & (setsid sh -c 'sleep ${marker} &'); until [ "$(pgrep -fxc 'sleep ${marker}')" = 3 ]; do sleep 0.02; done`,
          timeoutMs: 20_000,
        });
        assert.equal(result.exitCode, 0, result.stderr);
        assert.ok(await waitFor(() => processesWithArgument(marker).length === 0, 3_000), "survivors remain");
      } finally {
        killProcessesWithArgument(marker);
        await rt.destroy(handle);
      }
    });

    test(`abort kills the whole tree after it was seen running (${isolation})`, { skip }, async () => {
      const rt = runtime({ isolation });
      const handle = await rt.launch();
      const marker = uniqueSleep();
      const controller = new AbortController();
      try {
        const running = rt.exec(
          handle,
          { shell: `sleep ${marker} & setsid sleep ${marker} & wait`, timeoutMs: 60_000 },
          { signal: controller.signal },
        );
        assert.ok(await waitFor(() => processesWithArgument(marker).length === 2, 5_000), "both sleeps are counted");
        controller.abort(new Error("stop"));
        await assert.rejects(running, (error) => SandportError.hasCode(error, "ABORTED"));
        assert.ok(await waitFor(() => processesWithArgument(marker).length === 0, 3_000), "survivors remain");
      } finally {
        killProcessesWithArgument(marker);
        await rt.destroy(handle);
      }
    });
  }

  for (const cgroups of ["auto", "disabled"] as const) {
    test(`destroy kills a command another process runs in the sandbox (namespaces, cgroups: ${cgroups})`, {
      skip: skipNamespaces,
    }, async () => {
      const options = { root: root.path, isolation: "namespaces", cgroups, killGraceMs: 100 } as const;
      const rt = runtime(options);
      const handle = await rt.launch();
      const marker = uniqueSleep();
      try {
        const child = runNodeChild(`
          import { LocalRuntime } from ${JSON.stringify(ENTRY)};
          const runtime = new LocalRuntime(${JSON.stringify(options)});
          const handle = await runtime.getById(${JSON.stringify(handle.id)});
          const result = await runtime.exec(handle, { shell: "sleep ${marker}", timeoutMs: 60000 });
          console.log(JSON.stringify(result));
        `);
        assert.ok(await waitFor(() => processesWithArgument(marker).length === 1, 10_000), "the command runs");
        await rt.destroy(handle);
        assert.equal(processesWithArgument(marker).length, 0, "destroy returned only once it was dead");
        const output = await child;
        assert.equal(JSON.parse(output.stdout).exitCode, null, output.stderr);
      } finally {
        killProcessesWithArgument(marker);
      }
    });
  }

  test("destroy kills what a sandbox still runs (async command under none)", async () => {
    const rt = runtime({ isolation: "none" });
    const handle = await rt.launch();
    const marker = uniqueSleep();
    try {
      await rt.startCommand(handle, { shell: `setsid sleep ${marker} & sleep ${marker}`, sessionId: "long" });
      assert.ok(await waitFor(() => processesWithArgument(marker).length === 2, 5_000));
      await rt.destroy(handle);
      assert.ok(await waitFor(() => processesWithArgument(marker).length === 0, 3_000));
      assert.equal(await rt.getById(handle.id), undefined);
    } finally {
      killProcessesWithArgument(marker);
    }
  });
});
