import assert from "node:assert/strict";
import { existsSync, rmSync } from "node:fs";
import type { FileInput, SandboxHandle } from "@sandport/core";
import { assertSucceeded, expectCode, fileExists } from "./assertions.js";
import type { CheckGroup } from "./suite.js";

/**
 * Paths that escape the workspace, for a workspace at `root`. `name` is a unique
 * file name, so a path that wrongly succeeds leaves a trace no other run shares.
 */
export function escapingPaths(root: string, name: string): readonly string[] {
  return [
    `../${name}`,
    `inner/../../${name}`,
    `/tmp/${name}`,
    "/etc/passwd",
    `${root}/../${name}`,
    `${root}-sibling/${name}`,
    `%2e%2e/${name}`,
    `%2E%2E%2F${name}`,
    `%252e%252e/${name}`,
    `inner%2f..%2f..%2f${name}`,
    `nul\u0000/../../${name}`,
    `file\u0000.txt`,
  ];
}

/**
 * Registers the path-confinement checks: escaping paths refused before any
 * write, all-or-nothing batches, and symlinks that point outside.
 */
export function declarePathChecks<H extends SandboxHandle>(group: CheckGroup<H>): void {
  const { runtime, suite } = group;

  group.check("files.path-escapes", async () => {
    const handle = group.sandbox();
    const name = `sandport-escape-${suite.token}.txt`;
    for (const path of escapingPaths(runtime.workspaceRoot, name)) {
      await expectCode(() => runtime.readFile(handle, path), "INVALID_REQUEST", `readFile(${JSON.stringify(path)})`);
      await expectCode(
        () => runtime.writeFiles(handle, [{ path, content: "escaped" }]),
        "INVALID_REQUEST",
        `writeFiles(${JSON.stringify(path)})`,
      );
    }
    const probe = await runtime.exec(handle, { shell: `test ! -e ../${name} && test ! -e /tmp/${name}` });
    assertSucceeded(probe, "no escaping write landed next to the workspace or in /tmp");
  });

  group.check("files.batch-refused", async () => {
    const handle = group.sandbox();
    const batches: [string, FileInput[]][] = [
      [
        "an escaping path in the middle",
        [
          { path: "batch/first.txt", content: "1" },
          { path: "../batch-escape.txt", content: "2" },
          { path: "batch/last.txt", content: "3" },
        ],
      ],
      [
        "the same path twice",
        [
          { path: "batch/first.txt", content: "1" },
          { path: "batch/first.txt", content: "2" },
        ],
      ],
      [
        "content that is neither string nor bytes",
        [
          { path: "batch/first.txt", content: "1" },
          { path: "batch/last.txt", content: 42 as unknown as string },
        ],
      ],
      [
        "a mode above 0o7777",
        [
          { path: "batch/first.txt", content: "1" },
          { path: "batch/last.txt", content: "3", mode: 0o10000 },
        ],
      ],
      [
        "a setuid mode (0o4755)",
        [
          { path: "batch/first.txt", content: "1" },
          { path: "batch/last.txt", content: "3", mode: 0o4755 },
        ],
      ],
      [
        "a sticky mode (0o1777)",
        [
          { path: "batch/first.txt", content: "1" },
          { path: "batch/last.txt", content: "3", mode: 0o1777 },
        ],
      ],
      [
        "an unknown key (mdoe)",
        [{ path: "batch/first.txt", content: "1" }, { path: "batch/last.txt", content: "3", mdoe: 0o644 } as FileInput],
      ],
    ];
    for (const [what, files] of batches) {
      await expectCode(() => runtime.writeFiles(handle, files), "INVALID_REQUEST", `a batch with ${what}`);
      for (const path of ["batch/first.txt", "batch/last.txt"]) {
        assert.equal(await fileExists(runtime, handle, path), false, `a batch with ${what} wrote ${path}`);
      }
    }
  });

  group.check("files.symlink-escapes", async () => {
    const handle = group.sandbox();
    const name = `sandport-symlink-escape-${suite.token}`;
    const made = await runtime.exec(handle, {
      shell: [
        "mkdir -p links",
        "ln -s /etc links/etc-dir",
        "ln -s /etc/hostname links/etc-file",
        "ln -s /tmp links/tmp-dir",
        "ln -s ../.. links/up-dir",
        `ln -s /tmp/${name}-dangling links/dangling`,
      ].join(" && "),
    });
    assertSucceeded(made, "creating symlinks with ln -s");
    const reads = ["links/etc-file", "links/etc-dir/hostname", "links/up-dir/etc/hostname"];
    for (const path of reads) {
      await expectCode(() => runtime.readFile(handle, path), "INVALID_REQUEST", `readFile through ${path}`);
    }
    const writes = [`links/tmp-dir/${name}-via-dir`, "links/dangling", `links/up-dir/${name}-via-up`];
    try {
      for (const path of writes) {
        await expectCode(
          () => runtime.writeFiles(handle, [{ path, content: "escaped" }]),
          "INVALID_REQUEST",
          `writeFiles through ${path}`,
        );
      }
      const probe = await runtime.exec(handle, {
        shell: `test ! -e /tmp/${name}-via-dir && test ! -e /tmp/${name}-dangling && test ! -e ../${name}-via-up`,
      });
      assertSucceeded(probe, "nothing was written through a symlink (seen from inside the sandbox)");
      // For a runtime whose sandbox shares this machine's filesystem, /tmp is the host's own.
      for (const suffix of ["-via-dir", "-dangling"]) {
        assert.equal(
          existsSync(`/tmp/${name}${suffix}`),
          false,
          `a write through a symlink reached /tmp/${name}${suffix}`,
        );
      }
    } finally {
      for (const suffix of ["-via-dir", "-dangling"]) rmSync(`/tmp/${name}${suffix}`, { force: true });
    }
  });
}
