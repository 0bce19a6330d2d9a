// What a command may write under /proc: only its own processes' entries. Host-global entries, a new one
// included (/proc/pressure, whose writes register host-wide PSI triggers), are read-only inside.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, describe, test } from "node:test";
import { LocalRuntime } from "../index.js";
import { bwrapSkipReason, temporaryDirectory } from "../runtime.fixture.js";
import { readOnlyProcEntries } from "./bwrap.js";

const skip = await bwrapSkipReason();
const root = temporaryDirectory("proc-entries");
after(() => root.remove());

/** Prints `opened` or the errno of opening `path` for writing, without writing anything. */
const openForWriting = (path: string) =>
  `perl -MFcntl -e 'print sysopen(my $f, "${path}", O_WRONLY) ? "opened" : $! + 0, "\\n"'`;
const EROFS = 30;

describe("namespaces: /proc is read-only but for the sandbox's own processes", { skip }, () => {
  const runtime = new LocalRuntime({ root: root.path });

  test("/proc/pressure/cpu cannot be opened for writing", {
    skip: existsSync("/proc/pressure/cpu") ? undefined : "this kernel has no PSI",
  }, async () => {
    const handle = await runtime.launch();
    try {
      const result = await runtime.exec(handle, {
        shell: `${openForWriting("/proc/pressure/cpu")}; ${openForWriting("/proc/pressure/memory")}`,
      });
      assert.equal(result.stdout, `${EROFS}\n${EROFS}\n`, result.stderr);
    } finally {
      await runtime.destroy(handle);
    }
  });

  for (const namespaceScope of ["command", "sandbox"] as const) {
    test(`${namespaceScope} scope: no file under /proc outside the processes' own directories opens for writing`, {
      // A sandbox-wide scope joins namespaces a root runtime made; the /proc mounts are the command's own either way.
      skip: namespaceScope === "sandbox" && process.getuid?.() !== 0 ? "namespaceScope sandbox needs root" : undefined,
    }, async () => {
      const scoped = new LocalRuntime({ root: root.path, namespaceScope });
      // Walks the sandbox's /proc as the sandbox sees it (not the runtime's list of it): every regular file of every
      // top-level entry but the process directories and the links into them, opened write-only (nothing is written).
      const walk = [
        "import os, re",
        "tried, opened = [], []",
        "for name in sorted(os.listdir('/proc')):",
        "    top = '/proc/' + name",
        "    if re.fullmatch(r'\\d+', name) or name in ('self', 'thread-self') or os.path.islink(top): continue",
        "    tree = [os.path.join(d, f) for d, _, fs in os.walk(top) for f in fs]",
        "    paths = tree if os.path.isdir(top) else [top]",
        "    for path in paths:",
        "        if os.path.islink(path) or not os.path.isfile(path): continue",
        "        tried.append(path)",
        "        try: os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY)); opened.append(path)",
        "        except OSError: pass",
        "print(len(tried), '/proc/sys/kernel/core_pattern' in tried)",
        "print('\\n'.join(opened))",
      ].join("\n");
      const handle = await scoped.launch();
      try {
        const result = await scoped.exec(handle, { argv: ["python3", "-c", walk] });
        assert.equal(result.exitCode, 0, result.stderr);
        const [counts = "", ...opened] = result.stdout.trimEnd().split("\n");
        const [tried, sawCorePattern] = counts.split(" ");
        assert.ok(Number(tried) > 100, `walked ${tried} files`);
        assert.equal(sawCorePattern, "True", "the walk reached /proc/sys");
        assert.deepEqual(opened.filter(Boolean), [], "host-global /proc files that opened for writing");
      } finally {
        await scoped.destroy(handle);
      }
    });
  }

  test("every host-global entry a write could reach is a read-only mount; the list includes the known ones", async () => {
    const entries = readOnlyProcEntries();
    for (const known of ["sys", "irq", "bus", "fs", "pressure", "sysrq-trigger"]) {
      if (existsSync(`/proc/${known}`)) assert.ok(entries.includes(known), `${known} is listed`);
    }
    const handle = await runtime.launch();
    try {
      const result = await runtime.exec(handle, { argv: ["cat", "/proc/self/mountinfo"] });
      const readOnly = new Set(
        result.stdout
          .split("\n")
          .map((line) => line.split(" "))
          .filter((fields) => fields[5]?.split(",").includes("ro"))
          .map((fields) => fields[4]),
      );
      for (const entry of entries) assert.ok(readOnly.has(`/proc/${entry}`), `/proc/${entry} is mounted read-only`);
    } finally {
      await runtime.destroy(handle);
    }
  });

  test("a process's own entries stay writable: /proc/self/comm and oom_score_adj", async () => {
    const handle = await runtime.launch();
    try {
      const result = await runtime.exec(handle, {
        shell: "echo renamed > /proc/self/comm && echo 500 > /proc/self/oom_score_adj && echo written",
      });
      assert.equal(result.stdout, "written\n", result.stderr);
    } finally {
      await runtime.destroy(handle);
    }
  });
});
