// The baseline of `--timing`: a previous release's build, checked out with `git worktree add` into a
// temporary folder, installed from the pnpm store (offline) and built once; a later run with the same
// commit reuses it. The default ref is the tag `ci-green` (the last commit CI passed), else `main`.
import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const run = (command, args, cwd) =>
  execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();

/** The commit of `ref`, or undefined when the repository has no such ref. */
function commitOf(repository, ref) {
  try {
    return run("git", ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], repository);
  } catch {
    return undefined;
  }
}

/** The ref `--timing` compares with when none is given: `ci-green` if the tag exists, else `main`. */
export function defaultBaselineRef(repository) {
  return commitOf(repository, "refs/tags/ci-green") ? "ci-green" : "main";
}

/**
 * The folder of `ref`'s checkout with the `packages` built (those named and what they depend on),
 * preparing it when no earlier run did. Prints what it does: the install and build take minutes.
 */
export function prepareBaseline(repository, ref, packages) {
  const commit = commitOf(repository, ref);
  if (!commit) throw new Error(`no such git ref for the baseline: ${ref}`);
  const folder = join(tmpdir(), `sandport-baseline-${commit.slice(0, 12)}`);
  const built = join(folder, ".round-trips-built");
  if (existsSync(built)) {
    console.log(`baseline ${ref} (${commit.slice(0, 12)}): reusing the build in ${folder}`);
    return { folder, commit };
  }
  const started = Date.now();
  console.log(`baseline ${ref} (${commit.slice(0, 12)}): checking out, installing and building in ${folder}`);
  if (!existsSync(folder)) run("git", ["worktree", "add", "--detach", folder, commit], repository);
  run("pnpm", ["install", "--frozen-lockfile", "--offline"], folder);
  const present = packages.filter((name) => existsSync(join(folder, "packages", name, "package.json")));
  // As the root's build does: @sandport/core first (the test kit, a dev dependency of it, depends on it
  // in turn), then each package and what it depends on; the baseline's test kit is not used.
  run("pnpm", ["--filter", "@sandport/core", "run", "build"], folder);
  const filters = present.flatMap((name) => ["--filter", `{./packages/${name}}...`]);
  run("pnpm", [...filters, "--filter", "!@sandport/core", "--filter", "!@sandport/testkit", "run", "build"], folder);
  writeFileSync(built, `${present.join("\n")}\n`);
  console.log(
    `baseline ready in ${Math.round((Date.now() - started) / 1000)} s (remove it with: git worktree remove --force ${folder})`,
  );
  return { folder, commit };
}
