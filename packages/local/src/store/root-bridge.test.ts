// As root, a sandbox root under a parent the sandbox uids cannot pass through (a fresh mkdtemp directory,
// mode 0700, not chmodded): every kind of command reaches it through a mount namespace of its own, and
// nothing else under that parent shows.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { SandportError, type TerminalEvent } from "@sandport/core";
import { LocalRuntime } from "../index.js";
import { bwrapSkipReason, waitFor } from "../runtime.fixture.js";

const skipNamespaces = await bwrapSkipReason();
const asRoot = process.getuid?.() === 0;
const skip = skipNamespaces ?? (asRoot ? undefined : "only root's commands run as another uid");

for (const namespaceScope of ["command", "sandbox"] as const) {
  describe(`as root, namespaceScope "${namespaceScope}": a root inside a mkdtemp directory (mode 0700)`, {
    skip,
  }, () => {
    test("launches and runs exec, execStream, startCommand, spawn, files, a port and a terminal; the rest of the directory stays hidden", async () => {
      const scratch = mkdtempSync(join(tmpdir(), "sandport-local-bridge-"));
      assert.equal(statSync(scratch).mode & 0o777, 0o700, "mkdtemp made it 0700");
      writeFileSync(join(scratch, "secret.txt"), "host secret");
      const runtime = new LocalRuntime({ root: join(scratch, "root"), isolation: "namespaces", namespaceScope });
      const handles = [];
      try {
        const handle = await runtime.launch({ ports: [8080] });
        handles.push(handle);
        const other = await runtime.launch();
        handles.push(other);
        assert.equal(statSync(scratch).mode & 0o777, 0o700, "the parent is left as it was");

        const ran = await runtime.exec(handle, { shell: "id -u; echo kept > /tmp/t; cat /tmp/t; pwd" });
        assert.equal(ran.exitCode, 0, ran.stderr);
        const [uid, kept, cwd] = ran.stdout.trim().split("\n");
        assert.notEqual(uid, "0");
        assert.equal(kept, "kept");
        assert.equal(cwd, "/workspace");

        let streamed = "";
        for await (const event of runtime.execStream(handle, { shell: "echo streamed" })) {
          if (event.type === "stdout") streamed += event.data;
        }
        assert.equal(streamed, "streamed\n");

        const ref = await runtime.startCommand(handle, { sessionId: "bridge", shell: "echo async; cat /tmp/t" });
        assert.ok(
          await waitFor(async () => (await runtime.commandStatus(handle, ref)).state === "exited", 20_000),
          "the async command exits",
        );
        assert.equal((await runtime.commandStatus(handle, ref)).exitCode, 0);
        assert.match((await runtime.commandLogs(handle, ref)).stdout, /async\nkept\n/);

        await runtime.writeFiles(handle, [{ path: "dir/written.txt", content: "written" }]);
        assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "dir/written.txt")), "written");
        assert.equal((await runtime.exec(handle, { shell: "cat dir/written.txt" })).stdout, "written");

        const server = await runtime.spawn(handle, { shell: "exec python3 -u -m http.server 8080 --bind 127.0.0.1" });
        for await (const event of server.events) {
          if (event.type === "stdout" && event.data.includes("Serving HTTP")) break;
          if (event.type === "exited") assert.fail(`the server exited: ${JSON.stringify(event.result)}`);
        }
        const { url, headers } = await runtime.portEndpoint(handle, 8080);
        // Each command has a relay beside it; in the sandbox's shared namespaces, a later command's relay reaches the server too.
        const relay = namespaceScope === "sandbox" ? await runtime.spawn(handle, { argv: ["sleep", "30"] }) : undefined;
        const response = await fetch(url, { headers: { ...headers } });
        assert.equal(response.status, 200);
        await response.arrayBuffer();
        await Promise.all([server.kill(), relay?.kill()]);

        const terminal = await runtime.openTerminal(handle, { shell: "echo from-a-terminal" });
        let text = "";
        let exitCode: number | null | undefined;
        const decoder = new TextDecoder();
        for await (const event of terminal.events as AsyncIterable<TerminalEvent>) {
          if (event.type === "exited") {
            exitCode = event.exitCode;
            break;
          }
          text += decoder.decode(event.bytes, { stream: true });
        }
        assert.equal(exitCode, 0, text);
        assert.match(text, /from-a-terminal/);

        // Nothing else of the directory shows: not its other files, not the other sandbox, by any path.
        const look = await runtime.exec(handle, {
          shell: `cat ${scratch}/secret.txt; ls ${scratch}/root/${other.id}; ls -a ${scratch}; echo done`,
        });
        assert.doesNotMatch(look.stdout, /host secret|workspace|secret\.txt/, look.stdout);
        assert.match(look.stdout, /done\n$/);
      } finally {
        for (const handle of handles) await runtime.destroy(handle);
        rmSync(scratch, { recursive: true, force: true });
      }
    });

    test("a .tmp or a file swapped for a symbolic link into the directory shows nothing of it", async () => {
      const scratch = mkdtempSync(join(tmpdir(), "sandport-local-bridge-"));
      mkdirSync(join(scratch, "private"));
      writeFileSync(join(scratch, "private", "secret.txt"), "host secret");
      const runtime = new LocalRuntime({ root: join(scratch, "root"), isolation: "namespaces", namespaceScope });
      const handle = await runtime.launch();
      try {
        const swap = await runtime.exec(handle, {
          shell: `rm -rf /workspace/.tmp && ln -s ${scratch}/private /workspace/.tmp && ln -s ${scratch}/private/secret.txt /workspace/link`,
        });
        assert.equal(swap.exitCode, 0, swap.stderr);
        const next = await runtime.exec(handle, { shell: "cat /tmp/secret.txt; ls -a /tmp; cat link; echo done" });
        assert.doesNotMatch(next.stdout, /host secret|secret\.txt/, next.stdout);
        await assert.rejects(runtime.readFile(handle, "link"), (error) => SandportError.isInstance(error));
      } finally {
        await runtime.destroy(handle);
        rmSync(scratch, { recursive: true, force: true });
      }
    });

    test("a readOnlyPaths entry inside that directory is still refused at launch, naming both", async () => {
      // Outside /tmp: a readOnlyPaths entry under /tmp is refused at construction already.
      const scratch = mkdtempSync("/var/tmp/sandport-local-bridge-");
      mkdirSync(join(scratch, "tools"));
      try {
        const runtime = new LocalRuntime({
          root: join(scratch, "root"),
          isolation: "namespaces",
          namespaceScope,
          readOnlyPaths: [join(scratch, "tools")],
        });
        await assert.rejects(runtime.launch(), (error: unknown) => {
          assert.ok(SandportError.isInstance(error) && error.code === "UNSUPPORTED", String(error));
          assert.match(error.message, new RegExp(`cannot pass through ${scratch} .*${scratch}/tools`));
          return true;
        });
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    });
  });
}
