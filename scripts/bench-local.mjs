#!/usr/bin/env node
// Benchmark of @sandport/local against hand-written baselines measured in the same run.
// Not a test: it prints figures and ratios, and whether each target is met.
//
//   pnpm --filter @sandport/core --filter @sandport/local build && node scripts/bench-local.mjs [--quick]
//
// 1. 400 sequential `true` execs: isolated vs raw `bwrap` with the same flags (but no syscall filter); isolated
//    with its syscall filter vs without; `none` vs raw `child_process.spawn`.
// 2. Write and read back 200 files of 64 KiB and one 64 MiB file, vs raw `fs` on a plain directory.
// 3. 100 orchestrated workloads (launch, write a file, run a step, collect, destroy) at concurrency 1, 4, 16,
//    vs a raw script doing the same work with mkdtemp, fs and bwrap.
import { spawn } from "node:child_process";
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repository = fileURLToPath(new URL("..", import.meta.url));
const load = (name) => import(pathToFileURL(join(repository, "packages", name, "dist/index.js")).href);
const { SandboxOrchestrator } = await load("core");
const { DEFAULT_SANDBOX_USER, LocalRuntime } = await load("local");

const quick = process.argv.includes("--quick");
const EXECS = quick ? 50 : 400;
const WORKLOADS = quick ? 20 : 100;
const FILE_ROUNDS = quick ? 2 : 9;
const ROUNDS = quick ? 2 : 10;
/** Rounds of the latency comparisons: each side runs `count / LATENCY_ROUNDS` calls in a row per round. */
const LATENCY_ROUNDS = quick ? 4 : 10;
const BWRAP = "/usr/bin/bwrap";
const PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

const scratch = await mkdtemp(join(tmpdir(), "sandport-bench-"));
// As root, isolated commands run as an unprivileged sandbox user, who must be able to pass through to each root.
await chmod(scratch, 0o711);
/** How the raw baseline runs bubblewrap: as the same user LocalRuntime runs it as (the sandbox user, under root). */
const RAW_USER = process.getuid?.() === 0 ? { uid: DEFAULT_SANDBOX_USER.uid, gid: DEFAULT_SANDBOX_USER.gid } : {};
const rows = [];

/** Runs a program to completion, collecting its output (as every exec does). */
function run(file, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
    const chunks = [];
    child.stdout.on("data", (chunk) => chunks.push(chunk));
    child.stderr.on("data", (chunk) => chunks.push(chunk));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(Buffer.concat(chunks)) : reject(new Error(`${file} exited ${code}`)),
    );
  });
}

/** The same bubblewrap flags LocalRuntime uses (packages/local/src/commands/bwrap.ts), written out by hand. */
function rawBwrapArgs(workspace, command) {
  const etc = ["alternatives", "ca-certificates", "ca-certificates.conf", "gai.conf", "group", "host.conf", "hosts"];
  etc.push("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "mime.types", "nsswitch.conf", "os-release");
  etc.push("passwd", "protocols", "resolv.conf", "services", "ssl", "timezone");
  const args = ["--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session"];
  args.push("--cap-drop", "ALL", "--clearenv", "--ro-bind", "/usr", "/usr");
  for (const path of ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]) {
    try {
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) args.push("--symlink", readlinkSync(path), path);
      else if (stat.isDirectory()) args.push("--ro-bind", path, path);
    } catch {}
  }
  for (const entry of etc) args.push("--ro-bind-try", `/etc/${entry}`, `/etc/${entry}`);
  args.push("--proc", "/proc");
  // Every host-global entry a write could reach, read-only: all but the per-process ones.
  for (const entry of readdirSync("/proc", { withFileTypes: true })) {
    const name = entry.name;
    if (/^\d+$/.test(name) || name === "self" || name === "thread-self") continue;
    if (entry.isDirectory() || (entry.isFile() && (statSync(`/proc/${name}`).mode & 0o222) !== 0))
      args.push("--ro-bind-try", `/proc/${name}`, `/proc/${name}`);
  }
  args.push("--dev", "/dev", "--bind", workspace, "/workspace");
  args.push("--symlink", "/workspace/.tmp", "/tmp", "--remount-ro", "/dev", "--remount-ro", "/");
  args.push("--setenv", "PATH", PATH, "--setenv", "HOME", "/workspace", "--setenv", "TMPDIR", "/workspace/.tmp");
  args.push("--chdir", "/workspace", "--", ...command);
  return args;
}

/**
 * Median per-call latency of `task` and of `baseline`, after a short warm-up,
 * measured in alternating rounds (a block of calls of one, then a block of the
 * other, the first side changing each round) so that both see the same
 * machine load. Blocks rather than single calls: work a call leaves running in
 * the background after it resolves (a cgroup leaf returned to its pool, a
 * marker removed) then slows its own side's next call, not the other side's.
 */
async function compareLatency(count, baseline, task) {
  const times = { baseline: [], task: [] };
  const block = async (name, fn, calls) => {
    for (let call = 0; call < calls; call++) {
      const started = performance.now();
      await fn();
      times[name].push(performance.now() - started);
    }
  };
  for (let i = 0; i < 10; i++) {
    await baseline();
    await task();
  }
  const perBlock = Math.max(1, Math.floor(count / LATENCY_ROUNDS));
  for (let round = 0; round < LATENCY_ROUNDS; round++) {
    if (round % 2 === 0) {
      await block("baseline", baseline, perBlock);
      await block("task", task, perBlock);
    } else {
      await block("task", task, perBlock);
      await block("baseline", baseline, perBlock);
    }
  }
  return { baseline: median(times.baseline), task: median(times.task) };
}

/** Descriptors above stderr without close-on-exec (`flags` in `/proc/self/fdinfo` lacks `O_CLOEXEC`). */
function inheritedDescriptors() {
  const O_CLOEXEC = 0o2000000;
  const flagsOf = (fd) =>
    Number.parseInt(/^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "latin1"))?.[1] ?? "0", 8);
  return readdirSync("/proc/self/fd")
    .map(Number)
    .filter((fd) => fd > 2 && existsSync(`/proc/self/fdinfo/${fd}`) && (flagsOf(fd) & O_CLOEXEC) === 0);
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function record(name, ours, baseline, unit, ratio, target) {
  const met = target === undefined ? "" : target.test(ratio) ? "met" : "MISSED";
  rows.push({ name, ours, baseline, unit, ratio, target: target?.label ?? "", met });
  const line = `${name.padEnd(48)} ours ${ours.toFixed(2).padStart(9)} ${unit.padEnd(6)} raw ${baseline
    .toFixed(2)
    .padStart(9)} ${unit.padEnd(6)} ratio ${ratio.toFixed(2)} ${target ? `(target ${target.label}: ${met})` : ""}`;
  console.log(line);
}

const atMost = (limit) => ({ label: `≤ ${limit}×`, test: (ratio) => ratio <= limit });
const atLeast = (limit) => ({ label: `≥ ${limit}×`, test: (ratio) => ratio >= limit });

async function benchExec() {
  console.log(`\n# ${EXECS} sequential \`true\` execs (median latency per exec)`);
  const root = join(scratch, "exec");
  const isolated = new LocalRuntime({ root, isolation: "namespaces" });
  const handle = await isolated.launch();
  const raw = await compareLatency(
    EXECS,
    () => run(BWRAP, rawBwrapArgs(handle.workspaceDirectory, ["true"]), { env: {}, detached: true, ...RAW_USER }),
    () => isolated.exec(handle, { argv: ["true"] }),
  );
  record("exec isolated vs raw bwrap", raw.task, raw.baseline, "ms", raw.task / raw.baseline, atMost(1.2));
  // What the syscall filter adds: the same runtime with and without it, on the same sandbox.
  const unfiltered = new LocalRuntime({ root, isolation: "namespaces", syscallFilter: false });
  const filter = await compareLatency(
    EXECS,
    () => unfiltered.exec(handle, { argv: ["true"] }),
    () => isolated.exec(handle, { argv: ["true"] }),
  );
  const filterLabel = "exec isolated, syscall filter on vs off";
  record(filterLabel, filter.task, filter.baseline, "ms", filter.task / filter.baseline);
  await isolated.destroy(handle);

  for (const cgroups of ["auto", "disabled"]) {
    const plain = new LocalRuntime({ root, isolation: "none", cgroups });
    const sandbox = await plain.launch();
    const times = await compareLatency(
      EXECS,
      () => run("true", [], { env: { PATH }, cwd: sandbox.workspaceDirectory }),
      () => plain.exec(sandbox, { argv: ["true"] }),
    );
    const label = `exec none (cgroups: ${cgroups}) vs raw spawn`;
    record(
      label,
      times.task,
      times.baseline,
      "ms",
      times.task / times.baseline,
      cgroups === "auto" ? atMost(1.2) : undefined,
    );
    if (cgroups === "auto") {
      // A shell request joins its cgroup inside its own `sh -c`; an argv one is moved there right after spawn.
      const shell = await compareLatency(
        EXECS,
        () => run("/bin/sh", ["-c", "true"], { env: { PATH }, cwd: sandbox.workspaceDirectory }),
        () => plain.exec(sandbox, { shell: "true" }),
      );
      const shellLabel = "exec none shell 'true' vs raw sh -c";
      record(shellLabel, shell.task, shell.baseline, "ms", shell.task / shell.baseline, atMost(1.2));
    }
    await plain.destroy(sandbox);
  }
}

async function benchFiles() {
  console.log(
    `\n# file transfer (median of ${FILE_ROUNDS} rounds; ratio = raw time / our time, i.e. relative throughput)`,
  );
  const runtime = new LocalRuntime({ root: join(scratch, "files"), isolation: "none" });
  const handle = await runtime.launch();
  const rawDirectory = join(scratch, "raw-files");
  await mkdir(rawDirectory, { recursive: true });
  const small = Array.from({ length: 200 }, (_, index) => ({
    path: `small/file-${index}.bin`,
    content: Buffer.alloc(64 * 1024, index % 251),
  }));
  const big = [{ path: "big.bin", content: Buffer.alloc(64 * 1024 * 1024, 7) }];
  const cases = [
    ["200 × 64 KiB write + read", small],
    ["1 × 64 MiB write + read", big],
  ];
  for (const [name, files] of cases) {
    const ours = [];
    const raw = [];
    const rawRound = async () => {
      const started = performance.now();
      await mkdir(join(rawDirectory, "small"), { recursive: true });
      await Promise.all(files.map((file) => writeFile(join(rawDirectory, file.path), file.content)));
      const back = await Promise.all(files.map((file) => readFile(join(rawDirectory, file.path))));
      if (back.length !== files.length) throw new Error("raw read-back failed");
      return performance.now() - started;
    };
    const ourRound = async () => {
      const started = performance.now();
      await runtime.writeFiles(handle, files);
      const read = await Promise.all(files.map((file) => runtime.readFile(handle, file.path)));
      if (read.some((bytes, index) => bytes.length !== files[index].content.length))
        throw new Error("read-back failed");
      return performance.now() - started;
    };
    // Round 0 warms both up; then the order alternates, so that neither always meets the machine warmer.
    for (let round = 0; round < FILE_ROUNDS + 1; round++) {
      const [first, second] = round % 2 === 0 ? [rawRound, ourRound] : [ourRound, rawRound];
      const times = [await first(), await second()];
      if (round === 0) continue;
      const [rawTime, ourTime] = first === rawRound ? times : [times[1], times[0]];
      raw.push(rawTime);
      ours.push(ourTime);
    }
    record(name, median(ours), median(raw), "ms", median(raw) / median(ours), atLeast(0.7));
  }
  await runtime.destroy(handle);
}

async function pool(count, concurrency, task) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
  return performance.now() - started;
}

async function benchOrchestrator() {
  console.log(
    `\n# ${WORKLOADS} orchestrated workloads (throughput, median of ${ROUNDS} alternating rounds; ratio = ours / raw)`,
  );
  const runtime = new LocalRuntime({ root: join(scratch, "workloads"), isolation: "namespaces" });
  const orchestrator = new SandboxOrchestrator(runtime);
  const input = "hello from the benchmark\n";
  const step = ["sh", "-c", "wc -c < input.txt > out.txt"];
  const workload = {
    launch: {},
    files: [{ path: "input.txt", content: input }],
    steps: [{ argv: step }],
    collect: ["out.txt"],
    teardown: "always",
  };
  const rawRoot = join(scratch, "raw-workloads");
  await mkdir(rawRoot, { recursive: true });
  const rawWorkload = async () => {
    const directory = await mkdtemp(join(rawRoot, "w-"));
    const workspace = join(directory, "workspace");
    await mkdir(join(workspace, ".tmp"), { recursive: true });
    await writeFile(join(workspace, "input.txt"), input);
    if (RAW_USER.uid !== undefined) {
      await chmod(directory, 0o711);
      for (const path of [workspace, join(workspace, ".tmp"), join(workspace, "input.txt")]) {
        await chown(path, RAW_USER.uid, RAW_USER.gid);
      }
    }
    await run(BWRAP, rawBwrapArgs(workspace, step), { env: {}, detached: true, ...RAW_USER });
    const out = await readFile(join(workspace, "out.txt"), "utf8");
    if (out.trim() !== String(input.length)) throw new Error(`raw workload read ${out}`);
    await rm(directory, { recursive: true, force: true });
  };
  const ourWorkload = async () => {
    const result = await orchestrator.run(workload);
    const out = new TextDecoder().decode(result.collected["out.txt"]);
    if (!result.ok || out.trim() !== String(input.length)) throw new Error(`workload failed: ${out}`);
  };
  await pool(4, 2, rawWorkload);
  await pool(4, 2, ourWorkload);
  for (const concurrency of [1, 4, 16]) {
    // Alternating rounds, median of each, so that both see the same machine load.
    const rawTimes = [];
    const ourTimes = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which side goes first, so that neither always meets the machine warmer or cooler.
      if (round % 2 === 0) {
        rawTimes.push(await pool(WORKLOADS, concurrency, rawWorkload));
        ourTimes.push(await pool(WORKLOADS, concurrency, ourWorkload));
      } else {
        ourTimes.push(await pool(WORKLOADS, concurrency, ourWorkload));
        rawTimes.push(await pool(WORKLOADS, concurrency, rawWorkload));
      }
    }
    const [raw, ours] = [median(rawTimes), median(ourTimes)];
    const perSecond = (ms) => (WORKLOADS / ms) * 1000;
    record(
      `workloads at concurrency ${concurrency}`,
      perSecond(ours),
      perSecond(raw),
      "/s",
      perSecond(ours) / perSecond(raw),
      atLeast(0.8),
    );
  }
}

console.log(
  `sandport local benchmark: node ${process.version}, ${cpus().length} CPUs, ${Math.round(totalmem() / 2 ** 30)} GiB`,
);
const inherited = inheritedDescriptors();
if (inherited.length > 0) {
  // LocalRuntime covers each with /dev/null in every child (a stdio entry per number up to the highest); raw spawns do not.
  console.log(`note: this process inherited descriptors ${inherited.join(", ")} without close-on-exec`);
}
try {
  await benchExec();
  await benchFiles();
  await benchOrchestrator();
} finally {
  await rm(scratch, { recursive: true, force: true });
}

console.log("\n| measurement | ours | raw baseline | ratio | target |");
console.log("|---|---:|---:|---:|---|");
for (const row of rows) {
  const target = row.target ? `${row.target} (${row.met})` : "—";
  console.log(
    `| ${row.name} | ${row.ours.toFixed(2)} ${row.unit} | ${row.baseline.toFixed(2)} ${row.unit} | ${row.ratio.toFixed(2)} | ${target} |`,
  );
}
