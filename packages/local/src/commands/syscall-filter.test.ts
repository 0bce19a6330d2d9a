// The syscall filter: its program run by a classic-BPF interpreter here, for both architectures, and
// the filter at work in real sandboxes: each refused call made from inside (with perl, which every
// Debian has) reports the filter's errno, where without the filter the kernel answers otherwise.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { arch } from "node:process";
import { after, before, describe, test } from "node:test";
import { LocalRuntime, type LocalRuntimeOptions } from "../index.js";
import { DEFAULT_BWRAP_PATH, runsAsRoot } from "../options.js";
import { bwrapSkipReason, temporaryDirectory, waitFor } from "../runtime.fixture.js";
import { probeBwrap } from "./bwrap.js";
import { AUDIT_ARCH, buildSyscallFilter, SECCOMP_RETURN, X32_SYSCALL_BIT } from "./syscall-filter.js";

// Before any test is declared: tests declared after a top-level await may be missed by the runner.
const skip = (await bwrapSkipReason()) ?? (arch === "x64" || arch === "arm64" ? undefined : `no table for ${arch}`);
const numberKey = arch === "arm64" ? "arm64" : "x64";
const EPERM = 1;
const ENOSYS = 38;
const KILL = "kill";
const ALLOW = "allow";

/** Runs the program on one `seccomp_data` (args as 64-bit values), as the kernel would. */
function evaluate(program: Buffer, data: { arch: number; nr: number; args?: readonly bigint[] }): number | string {
  const record = Buffer.alloc(64);
  record.writeInt32LE(data.nr, 0);
  record.writeUInt32LE(data.arch, 4);
  for (const [index, value] of (data.args ?? []).entries()) {
    record.writeBigUInt64LE(BigInt.asUintN(64, value), 16 + 8 * index);
  }
  let accumulator = 0;
  for (let at = 0; at < program.length / 8; ) {
    const code = program.readUInt16LE(at * 8);
    const whenTrue = program.readUInt8(at * 8 + 2);
    const whenFalse = program.readUInt8(at * 8 + 3);
    const value = program.readUInt32LE(at * 8 + 4);
    if (code === 0x20) {
      accumulator = record.readUInt32LE(value);
      at++;
    } else if (code === 0x15 || code === 0x45) {
      const taken = code === 0x15 ? accumulator === value : (accumulator & value) !== 0;
      at += 1 + (taken ? whenTrue : whenFalse);
    } else if (code === 0x06) {
      if (value === SECCOMP_RETURN.ALLOW) return ALLOW;
      if (value === SECCOMP_RETURN.KILL_PROCESS) return KILL;
      assert.equal(value & 0xffff0000, SECCOMP_RETURN.ERRNO, `unknown action ${value.toString(16)}`);
      return value & 0xffff;
    } else {
      throw new Error(`unknown opcode ${code} at ${at}`);
    }
  }
  throw new Error("the program ran off its end");
}

/** Syscall numbers from the kernel's tables (x86-64 `unistd_64.h`, AArch64 `asm-generic/unistd.h`), written out independently of the filter. */
const NUMBERS: Record<string, { x64: number; arm64: number; refused: number }> = {
  io_uring_setup: { x64: 425, arm64: 425, refused: ENOSYS },
  io_uring_enter: { x64: 426, arm64: 426, refused: ENOSYS },
  io_uring_register: { x64: 427, arm64: 427, refused: ENOSYS },
  bpf: { x64: 321, arm64: 280, refused: EPERM },
  perf_event_open: { x64: 298, arm64: 241, refused: EPERM },
  userfaultfd: { x64: 323, arm64: 282, refused: EPERM },
  keyctl: { x64: 250, arm64: 219, refused: EPERM },
  add_key: { x64: 248, arm64: 217, refused: EPERM },
  request_key: { x64: 249, arm64: 218, refused: EPERM },
  ptrace: { x64: 101, arm64: 117, refused: EPERM },
  process_vm_readv: { x64: 310, arm64: 270, refused: EPERM },
  process_vm_writev: { x64: 311, arm64: 271, refused: EPERM },
  kexec_load: { x64: 246, arm64: 104, refused: EPERM },
  kexec_file_load: { x64: 320, arm64: 294, refused: EPERM },
  open_tree: { x64: 428, arm64: 428, refused: ENOSYS },
  move_mount: { x64: 429, arm64: 429, refused: ENOSYS },
  fsopen: { x64: 430, arm64: 430, refused: ENOSYS },
  fsconfig: { x64: 431, arm64: 431, refused: ENOSYS },
  fsmount: { x64: 432, arm64: 432, refused: ENOSYS },
  fspick: { x64: 433, arm64: 433, refused: ENOSYS },
  mount_setattr: { x64: 442, arm64: 442, refused: ENOSYS },
  open_tree_attr: { x64: 467, arm64: 467, refused: ENOSYS },
};
const ALLOWED = { getpid: { x64: 39, arm64: 172 }, setresuid_x64_is_ptrace_arm64: { x64: 117, arm64: 147 } };
const IOCTL = { x64: 16, arm64: 29 };
const SOCKET = { x64: 41, arm64: 198 };
const TIOCSTI = 0x5412n;
const TIOCLINUX = 0x541cn;
const AF_VSOCK = 40n;

describe("the filter program", () => {
  const program = buildSyscallFilter();
  for (const [name, architecture] of [
    ["x64", AUDIT_ARCH.x86_64],
    ["arm64", AUDIT_ARCH.aarch64],
  ] as const) {
    test(`${name}: each refused call gets its errno; others are allowed`, () => {
      for (const [call, numbers] of Object.entries(NUMBERS)) {
        assert.equal(evaluate(program, { arch: architecture, nr: numbers[name] }), numbers.refused, call);
      }
      assert.equal(evaluate(program, { arch: architecture, nr: ALLOWED.getpid[name] }), ALLOW);
      assert.equal(evaluate(program, { arch: architecture, nr: ALLOWED.setresuid_x64_is_ptrace_arm64[name] }), ALLOW);
    });

    test(`${name}: ioctl TIOCSTI and TIOCLINUX are refused on their low 32 bits; other requests pass`, () => {
      const ioctl = (request: bigint) =>
        evaluate(program, { arch: architecture, nr: IOCTL[name], args: [0n, request] });
      assert.equal(ioctl(TIOCSTI), EPERM);
      assert.equal(ioctl(TIOCLINUX), EPERM);
      // The kernel reads the request as 32 bits: high bits must not slip it past (CVE-2019-10063).
      assert.equal(ioctl(TIOCSTI | (1n << 32n)), EPERM);
      assert.equal(ioctl(0x5401n), ALLOW, "TCGETS");
      const onDescriptor = evaluate(program, { arch: architecture, nr: IOCTL[name], args: [TIOCSTI, 0x5401n] });
      assert.equal(onDescriptor, ALLOW, "the request is the second argument, not the first");
    });

    test(`${name}: socket(AF_VSOCK) is refused; AF_INET and AF_UNIX pass`, () => {
      const socket = (family: bigint) =>
        evaluate(program, { arch: architecture, nr: SOCKET[name], args: [family, 1n] });
      assert.equal(socket(AF_VSOCK), EPERM);
      assert.equal(socket(AF_VSOCK | (1n << 40n)), EPERM);
      assert.equal(socket(2n), ALLOW);
      assert.equal(socket(1n), ALLOW);
    });
  }

  test("x32 calls are refused; another ABI (i386, arm32) kills the process", () => {
    assert.equal(evaluate(program, { arch: AUDIT_ARCH.x86_64, nr: X32_SYSCALL_BIT | 39 }), EPERM);
    assert.equal(evaluate(program, { arch: 0x40000003, nr: 20 }), KILL, "AUDIT_ARCH_I386");
    assert.equal(evaluate(program, { arch: 0x40000028, nr: 20 }), KILL, "AUDIT_ARCH_ARM");
  });
});

/**
 * Arguments (perl expressions) for each call, chosen so that without the
 * filter the kernel answers with something else than the filter's errno
 * (success, EBADF, EINVAL, EFAULT, EPERM where the filter says ENOSYS). Pointers are
 * perl variables (`$buffer` and the like, defined by the script).
 */
const ARGUMENTS: Record<string, string> = {
  io_uring_setup: "1, $buffer",
  io_uring_enter: "-1, 0, 0, 0, 0, 0",
  io_uring_register: "-1, 0, 0, 0",
  bpf: "0, $buffer, 72",
  perf_event_open: "$buffer, 0, -1, -1, 0",
  userfaultfd: "1",
  keyctl: "0, -3, 0",
  add_key: "0, 0, 0, 0, 0",
  request_key: "0, 0, 0, 0",
  ptrace: "0, 0, 0, 0",
  process_vm_readv: "$$, 0, 0, 0, 0, 0",
  process_vm_writev: "$$, 0, 0, 0, 0, 0",
  kexec_load: "0, 0, 0, 0",
  kexec_file_load: "-1, -1, 0, 0, 0",
  open_tree: "-100, $dot, 0",
  move_mount: "-1, $empty, -1, $empty, 0",
  fsopen: "$tmpfs, 0",
  fsconfig: "-1, 0, 0, 0, 0",
  fsmount: "-1, 0, 0",
  fspick: "-100, $dot, 0",
  mount_setattr: "-1, $empty, 0, 0, 0",
  open_tree_attr: "-100, $dot, 0, 0, 0",
};

/** A perl script that makes each call and prints `name=<errno>` (0 when it succeeded). */
function probeScript(): string {
  const lines = [
    "$| = 1;",
    "sub report { my ($name, $result) = @_; print $name, '=', ($result == -1 ? $! + 0 : 0), \"\\n\"; }",
  ];
  for (const [name, numbers] of Object.entries(NUMBERS)) {
    // Fresh, writable buffers for every call (perl passes a string's buffer as a pointer).
    lines.push('my ($buffer, $dot, $empty, $tmpfs) = ("\\0" x 128, ".", "", "tmpfs");');
    lines.push(`$! = 0; report("${name}", syscall(${numbers[numberKey]}, ${ARGUMENTS[name]}));`);
  }
  lines.push(`$! = 0; report("socket_vsock", syscall(${SOCKET[numberKey]}, 40, 1, 0));`);
  if (numberKey === "x64") lines.push(`$! = 0; report("x32", syscall(${X32_SYSCALL_BIT | 39}));`);
  lines.push(
    `$! = 0; my $buffer = "\\0" x 8; print "tioclinux=", (ioctl(STDIN, ${TIOCLINUX}, $buffer) ? 0 : $! + 0), "\\n";`,
  );
  return lines.join("\n");
}

/**
 * A perl script that opens a pty, makes it the controlling terminal of a new
 * session (where TIOCSTI works unprivileged) and pushes a byte into its input.
 */
const TIOCSTI_SCRIPT = `
use POSIX (); $| = 1;
open(my $master, "+<", "/dev/ptmx") or die "ptmx: $!";
my $unlock = pack("i", 0); ioctl($master, 0x40045431, $unlock) or die "unlockpt: $!";
my $number = pack("I", 0); ioctl($master, 0x80045430, $number) or die "ptsname: $!";
my $child = fork() // die "fork: $!";
if ($child == 0) {
  POSIX::setsid() or die "setsid: $!";
  open(my $terminal, "+<", "/dev/pts/" . unpack("I", $number)) or die "pts: $!";
  print "controlling=", (POSIX::tcgetpgrp(fileno($terminal)) == $$ ? 1 : 0), "\\n";
  my $byte = "x"; $! = 0;
  print "tiocsti=", (ioctl($terminal, ${TIOCSTI}, $byte) ? 0 : $! + 0), "\\n";
  POSIX::_exit(0);
}
waitpid($child, 0);
`;

describe("namespaces: the syscall filter at work", { skip }, () => {
  const root = temporaryDirectory("syscall-filter");
  after(() => root.remove());
  const runtime = (options: LocalRuntimeOptions = {}) => new LocalRuntime({ root: root.path, ...options });

  /** Runs a perl script in a fresh sandbox; returns its `name=value` lines. */
  async function perl(script: string, options: LocalRuntimeOptions = {}): Promise<Map<string, number>> {
    const local = runtime(options);
    const handle = await local.launch();
    try {
      await local.writeFiles(handle, [{ path: "probe.pl", content: script }]);
      const result = await local.exec(handle, { argv: ["perl", "probe.pl"] });
      assert.equal(result.exitCode, 0, result.stderr);
      return new Map(
        result.stdout
          .trim()
          .split("\n")
          .map((line) => line.split("=") as [string, string])
          .map(([name, value]) => [name, Number(value)]),
      );
    } finally {
      await local.destroy(handle);
    }
  }

  let filtered: Map<string, number>;
  before(async () => {
    filtered = await perl(probeScript());
  });

  for (const [name, numbers] of Object.entries(NUMBERS)) {
    test(`${name} is refused with ${numbers.refused === EPERM ? "EPERM" : "ENOSYS"}`, () => {
      assert.equal(filtered.get(name), numbers.refused);
    });
  }

  test("socket(AF_VSOCK) is refused with EPERM", () => {
    assert.equal(filtered.get("socket_vsock"), EPERM);
  });

  test("x32 calls are refused with EPERM", { skip: numberKey === "x64" ? undefined : "x32 is an x86-64 ABI" }, () => {
    assert.equal(filtered.get("x32"), EPERM);
  });

  test("ioctl TIOCLINUX is refused with EPERM (not ENOTTY)", () => {
    assert.equal(filtered.get("tioclinux"), EPERM);
  });

  test("ioctl TIOCSTI on the controlling terminal is refused with EPERM; without the filter it types (where the kernel allows it)", async () => {
    const refused = await perl(TIOCSTI_SCRIPT);
    assert.equal(refused.get("controlling"), 1, "the pty is the session's controlling terminal");
    assert.equal(refused.get("tiocsti"), EPERM);
    // The control, where the kernel still lets an unprivileged process type into its own terminal.
    if (readFileSync("/proc/sys/dev/tty/legacy_tiocsti", "utf8").trim() === "1") {
      assert.equal((await perl(TIOCSTI_SCRIPT, { syscallFilter: false })).get("tiocsti"), 0);
    }
  });

  test("the isolation probe loads the filter too, as commands do", async () => {
    assert.deepEqual(await probeBwrap({ bwrapPath: DEFAULT_BWRAP_PATH, syscallFilter: true }), { ok: true });
  });

  test("every command runs under the filter; syscallFilter: false turns it off", async () => {
    const statusOf = async (options: LocalRuntimeOptions) => {
      const local = runtime(options);
      const handle = await local.launch();
      try {
        return (await local.exec(handle, { argv: ["grep", "^Seccomp:", "/proc/self/status"] })).stdout.trim();
      } finally {
        await local.destroy(handle);
      }
    };
    assert.match(await statusOf({}), /^Seccomp:\s+2$/, "mode 2: a filter");
    assert.match(await statusOf({ syscallFilter: false }), /^Seccomp:\s+0$/);
    assert.throws(() => runtime({ syscallFilter: "yes" as unknown as boolean }), { code: "INVALID_REQUEST" });
  });

  test("an async command (startCommand) and a command in shared namespaces run under it too", async () => {
    const scopes: LocalRuntimeOptions[] = [{}];
    if (runsAsRoot()) scopes.push({ namespaceScope: "sandbox" });
    for (const options of scopes) {
      const local = runtime(options);
      const handle = await local.launch();
      try {
        const script = "grep ^Seccomp: /proc/self/status > status.txt";
        const ref = await local.startCommand(handle, { sessionId: "status", shell: script });
        assert.ok(await waitFor(async () => (await local.commandStatus(handle, ref)).state === "exited", 10_000));
        const status = new TextDecoder().decode(await local.readFile(handle, "status.txt"));
        assert.match(status, /^Seccomp:\s+2$/m, `async, ${options.namespaceScope ?? "command"} scope`);
        const synchronous = await local.exec(handle, { argv: ["grep", "^Seccomp:", "/proc/self/status"] });
        assert.match(synchronous.stdout, /^Seccomp:\s+2$/m, `exec, ${options.namespaceScope ?? "command"} scope`);
      } finally {
        await local.destroy(handle);
      }
    }
  });

  test("a normal workload still works: sh, perl, and node with async fs, a child process and a loopback socket", async () => {
    const local = runtime();
    const handle = await local.launch();
    try {
      const node = [
        'const fs = require("fs/promises"); const net = require("net"); const { execFileSync } = require("child_process");',
        "(async () => {",
        '  await fs.mkdir("dir/sub", { recursive: true });',
        "  await Promise.all(Array.from({ length: 20 }, (_, i) => fs.writeFile('dir/sub/' + i + '.txt', String(i))));",
        '  const read = await Promise.all((await fs.readdir("dir/sub")).map((f) => fs.readFile("dir/sub/" + f, "utf8")));',
        "  const sum = read.map(Number).reduce((a, b) => a + b, 0);",
        '  const echoed = execFileSync("/bin/sh", ["-c", "echo child"]).toString().trim();',
        "  const server = net.createServer((s) => s.end('pong')).listen(0, '127.0.0.1', () => {",
        "    net.connect(server.address().port, '127.0.0.1').on('data', (d) => { console.log(sum, echoed, String(d)); server.close(); });",
        "  });",
        "})();",
      ].join("\n");
      await local.writeFiles(handle, [{ path: "work.js", content: node }]);
      const result = await local.exec(handle, {
        shell: "node work.js && perl -e 'print 6*7, \"\\n\"' && echo shell-ok | tr a-z A-Z",
      });
      assert.equal(result.stderr, "");
      assert.equal(result.stdout, "190 child pong\n42\nSHELL-OK\n");
      assert.equal(result.exitCode, 0);
    } finally {
      await local.destroy(handle);
    }
  });
});
