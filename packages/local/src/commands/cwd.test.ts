// A command's working directory outside the workspace: what it means under each isolation mode.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SandportError } from "@sandport/core";
import { LocalRuntime } from "../index.js";
import { bwrapSkipReason, temporaryDirectory } from "../runtime.fixture.js";

const skipNamespaces = await bwrapSkipReason();
const root = temporaryDirectory("cwd");
after(() => root.remove());

/** `NOT_FOUND` naming `cwd` in its details and message. */
const missing = (cwd: string) => (error: unknown) => {
  assert.ok(SandportError.hasCode(error, "NOT_FOUND"), String(error));
  assert.equal(error.details?.cwd, cwd);
  assert.match(error.message, new RegExp(`working directory ${cwd} does not exist`));
  return true;
};

for (const isolation of ["namespaces", "none"] as const) {
  describe(`cwd outside the workspace (isolation: ${isolation})`, {
    skip: isolation === "namespaces" && skipNamespaces,
  }, () => {
    test("/tmp and / are working directories; a file written in /tmp stays out of the workspace", async () => {
      const rt = new LocalRuntime({ root: root.path, isolation });
      const handle = await rt.launch();
      const name = `cwd-probe-${process.pid}-${Date.now()}`;
      try {
        const inTmp = await rt.exec(handle, { shell: `pwd; echo here > ${name}`, cwd: "/tmp" });
        assert.equal(inTmp.exitCode, 0, inTmp.stderr);
        assert.equal(inTmp.stdout, "/tmp\n");
        const listed = (await rt.listDir(handle, "")).map((entry) => entry.path);
        assert.ok(!listed.includes(name), `${name} is in the workspace listing: ${listed.join(", ")}`);
        const back = await rt.exec(handle, { argv: ["cat", `/tmp/${name}`] });
        assert.equal(back.stdout, "here\n", "the file is in /tmp");
        const atRoot = await rt.exec(handle, { argv: ["pwd"], cwd: "/" });
        assert.equal(atRoot.stdout, "/\n");
        const relative = await rt.exec(handle, { argv: ["pwd"], cwd: "." });
        assert.notEqual(relative.stdout, "/tmp\n", "a relative cwd is still the workspace's");
        await rt.exec(handle, { argv: ["rm", "-f", `/tmp/${name}`] });
      } finally {
        await rt.destroy(handle);
      }
    });

    test("a missing directory is NOT_FOUND naming it, inside the workspace or not, and nothing runs", async () => {
      const rt = new LocalRuntime({ root: root.path, isolation });
      const handle = await rt.launch();
      const absent = `/tmp/sandport-absent-${process.pid}-${Date.now()}`;
      try {
        await assert.rejects(rt.exec(handle, { shell: "echo ran > ran.txt", cwd: absent }), missing(absent));
        await assert.rejects(rt.exec(handle, { shell: "echo ran > ran.txt", cwd: "nope" }), missing("/workspace/nope"));
        await assert.rejects(
          rt.exec(handle, { shell: "echo ran > ran.txt", cwd: "/workspace/nope" }),
          missing("/workspace/nope"),
        );
        assert.equal((await rt.listDir(handle, "")).filter((entry) => entry.path === "ran.txt").length, 0);
      } finally {
        await rt.destroy(handle);
      }
    });
  });
}

test("under none, an absolute cwd outside the workspace is the host's directory", async () => {
  const host = mkdtempSync(join(tmpdir(), "sandport-cwd-host-"));
  const rt = new LocalRuntime({ root: root.path, isolation: "none" });
  const handle = await rt.launch();
  try {
    const result = await rt.exec(handle, { argv: ["pwd"], cwd: host });
    assert.equal(result.stdout, `${host}\n`);
  } finally {
    await rt.destroy(handle);
    rmSync(host, { recursive: true, force: true });
  }
});
