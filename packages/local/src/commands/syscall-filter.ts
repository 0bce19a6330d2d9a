import { endianness } from "node:os";

/**
 * The seccomp program every isolated command runs under (bubblewrap's
 * `--seccomp`), generated here as classic BPF so that a fresh install needs no
 * native build. It refuses the system calls a sandboxed command has no use for
 * and that recent escapes and local privilege escalations went through; all
 * else is allowed (a deny list: the capabilities bubblewrap drops and the user
 * namespace it disables already refuse the privileged calls).
 *
 * The program checks the architecture first: x86-64 and AArch64 each get their
 * own syscall numbers; any other ABI (32-bit x86 through `int 0x80`, 32-bit
 * Arm) kills the process, as its numbers would slip past the table, and so do
 * nothing but exit or crash. x32 calls (x86-64 numbers with bit 30 set) are
 * refused with `EPERM`.
 */

/** A refused system call, its number on each architecture, and why it is refused. */
export interface RefusedSyscall {
  readonly name: string;
  readonly x86_64: number;
  readonly aarch64: number;
  /** What the call returns: `ENOSYS` where callers fall back when the kernel lacks it (libuv, util-linux). */
  readonly errno: "EPERM" | "ENOSYS";
  readonly why: string;
}

const IO_URING = "a large kernel attack surface behind many escalations; libuv falls back to its thread pool on ENOSYS";
const KEYS = "the kernel keyring is shared by every process of a uid, not namespaced; keyring bugs gave escalations";
const PEEK = "reads and writes another process's memory";
const MOUNT_API = "the new mount API (needs CAP_SYS_ADMIN, dropped); ENOSYS makes mount tools fall back";

/** Every call the filter refuses outright (whatever its arguments), by name. */
export const REFUSED_SYSCALLS: readonly RefusedSyscall[] = [
  { name: "io_uring_setup", x86_64: 425, aarch64: 425, errno: "ENOSYS", why: IO_URING },
  { name: "io_uring_enter", x86_64: 426, aarch64: 426, errno: "ENOSYS", why: IO_URING },
  { name: "io_uring_register", x86_64: 427, aarch64: 427, errno: "ENOSYS", why: IO_URING },
  { name: "bpf", x86_64: 321, aarch64: 280, errno: "EPERM", why: "eBPF verifier bugs are a recurring route to root" },
  {
    name: "perf_event_open",
    x86_64: 298,
    aarch64: 241,
    errno: "EPERM",
    why: "kernel profiling: escalation bugs and side channels",
  },
  {
    name: "userfaultfd",
    x86_64: 323,
    aarch64: 282,
    errno: "EPERM",
    why: "pauses the kernel mid-copy: the usual tool to win kernel races",
  },
  { name: "keyctl", x86_64: 250, aarch64: 219, errno: "EPERM", why: KEYS },
  { name: "add_key", x86_64: 248, aarch64: 217, errno: "EPERM", why: KEYS },
  { name: "request_key", x86_64: 249, aarch64: 218, errno: "EPERM", why: KEYS },
  { name: "ptrace", x86_64: 101, aarch64: 117, errno: "EPERM", why: "controls another process" },
  { name: "process_vm_readv", x86_64: 310, aarch64: 270, errno: "EPERM", why: PEEK },
  { name: "process_vm_writev", x86_64: 311, aarch64: 271, errno: "EPERM", why: PEEK },
  { name: "kexec_load", x86_64: 246, aarch64: 104, errno: "EPERM", why: "loads a new kernel" },
  { name: "kexec_file_load", x86_64: 320, aarch64: 294, errno: "EPERM", why: "loads a new kernel" },
  { name: "open_tree", x86_64: 428, aarch64: 428, errno: "ENOSYS", why: MOUNT_API },
  { name: "move_mount", x86_64: 429, aarch64: 429, errno: "ENOSYS", why: MOUNT_API },
  { name: "fsopen", x86_64: 430, aarch64: 430, errno: "ENOSYS", why: MOUNT_API },
  { name: "fsconfig", x86_64: 431, aarch64: 431, errno: "ENOSYS", why: MOUNT_API },
  { name: "fsmount", x86_64: 432, aarch64: 432, errno: "ENOSYS", why: MOUNT_API },
  { name: "fspick", x86_64: 433, aarch64: 433, errno: "ENOSYS", why: MOUNT_API },
  { name: "mount_setattr", x86_64: 442, aarch64: 442, errno: "ENOSYS", why: MOUNT_API },
  { name: "open_tree_attr", x86_64: 467, aarch64: 467, errno: "ENOSYS", why: MOUNT_API },
];

/** `ioctl` requests refused (compared on the low 32 bits, as the kernel reads them). */
export const REFUSED_IOCTLS = {
  /** Pushes bytes into a terminal's input: a command would type into the shell that started it (CVE-2017-5226). */
  TIOCSTI: 0x5412,
  /** Console ioctl whose selection paste does the same on a virtual console (CVE-2023-28100). */
  TIOCLINUX: 0x541c,
} as const;

/** Socket families refused by `socket`: `AF_VSOCK` reaches the hypervisor or the VM host (a WSL2 escape). */
export const REFUSED_SOCKET_FAMILIES = { AF_VSOCK: 40 } as const;

/** The calls whose arguments the filter inspects: their numbers per architecture. */
const ARGUMENT_CHECKED = {
  ioctl: { x86_64: 16, aarch64: 29 },
  socket: { x86_64: 41, aarch64: 198 },
} as const;

/** `seccomp_data.arch` values (`AUDIT_ARCH_*`). */
export const AUDIT_ARCH = { x86_64: 0xc000003e, aarch64: 0xc00000b7 } as const;
/** Bit 30 of an x86-64 syscall number marks the x32 ABI. */
export const X32_SYSCALL_BIT = 0x40000000;

/** `SECCOMP_RET_*` actions. */
export const SECCOMP_RETURN = { KILL_PROCESS: 0x80000000, ERRNO: 0x00050000, ALLOW: 0x7fff0000 } as const;
/** The errno values returned (the same on both architectures). */
export const ERRNO = { EPERM: 1, ENOSYS: 38 } as const;

/** Offsets in `struct seccomp_data`: `nr`, `arch`, then the low 32 bits of each 64-bit argument (little-endian). */
const DATA = { nr: 0, arch: 4, argumentLow: (index: number) => 16 + 8 * index } as const;

/** Classic BPF opcodes used here. */
const OP = { LOAD_WORD: 0x20, JUMP_EQUAL: 0x15, JUMP_SET: 0x45, RETURN: 0x06 } as const;

type Step =
  | { readonly op: "load"; readonly offset: number }
  | { readonly op: "jumpIfEqual" | "jumpIfSet"; readonly value: number; readonly to: string }
  | { readonly op: "return"; readonly value: number }
  | { readonly label: string };

/** Turns steps into `struct sock_filter` records: a conditional jump goes to its label when true, else falls through. */
function assemble(steps: readonly Step[]): Buffer {
  const labels = new Map<string, number>();
  const instructions: Exclude<Step, { label: string }>[] = [];
  for (const step of steps) {
    if ("label" in step) labels.set(step.label, instructions.length);
    else instructions.push(step);
  }
  const program = Buffer.alloc(instructions.length * 8);
  const write = endianness() === "LE" ? "LE" : "BE";
  instructions.forEach((step, at) => {
    let code: number;
    let whenTrue = 0;
    let value: number;
    if (step.op === "load") {
      code = OP.LOAD_WORD;
      value = step.offset;
    } else if (step.op === "return") {
      code = OP.RETURN;
      value = step.value;
    } else {
      code = step.op === "jumpIfEqual" ? OP.JUMP_EQUAL : OP.JUMP_SET;
      value = step.value;
      const target = labels.get(step.to);
      if (target === undefined || target <= at || target - at - 1 > 255) throw new Error(`bad jump to ${step.to}`);
      whenTrue = target - at - 1;
    }
    const offset = at * 8;
    program[`writeUInt16${write}`](code, offset);
    program.writeUInt8(whenTrue, offset + 2);
    program.writeUInt8(0, offset + 3);
    program[`writeUInt32${write}`](value >>> 0, offset + 4);
  });
  return program;
}

/** The part of the program for one architecture, reached with the syscall number not yet loaded. */
function architectureSteps(arch: "x86_64" | "aarch64"): Step[] {
  const steps: Step[] = [{ label: arch }, { op: "load", offset: DATA.nr }];
  if (arch === "x86_64") steps.push({ op: "jumpIfSet", value: X32_SYSCALL_BIT, to: "EPERM" });
  for (const call of REFUSED_SYSCALLS) steps.push({ op: "jumpIfEqual", value: call[arch], to: call.errno });
  steps.push({ op: "jumpIfEqual", value: ARGUMENT_CHECKED.ioctl[arch], to: "ioctl" });
  steps.push({ op: "jumpIfEqual", value: ARGUMENT_CHECKED.socket[arch], to: "socket" });
  steps.push({ op: "return", value: SECCOMP_RETURN.ALLOW });
  return steps;
}

/** Builds the whole program (see the module comment). */
export function buildSyscallFilter(): Buffer {
  return assemble([
    { op: "load", offset: DATA.arch },
    { op: "jumpIfEqual", value: AUDIT_ARCH.x86_64, to: "x86_64" },
    { op: "jumpIfEqual", value: AUDIT_ARCH.aarch64, to: "aarch64" },
    { op: "return", value: SECCOMP_RETURN.KILL_PROCESS },
    ...architectureSteps("x86_64"),
    ...architectureSteps("aarch64"),
    { label: "ioctl" },
    { op: "load", offset: DATA.argumentLow(1) },
    ...Object.values(REFUSED_IOCTLS).map((request): Step => ({ op: "jumpIfEqual", value: request, to: "EPERM" })),
    { op: "return", value: SECCOMP_RETURN.ALLOW },
    { label: "socket" },
    { op: "load", offset: DATA.argumentLow(0) },
    ...Object.values(REFUSED_SOCKET_FAMILIES).map(
      (family): Step => ({ op: "jumpIfEqual", value: family, to: "EPERM" }),
    ),
    { op: "return", value: SECCOMP_RETURN.ALLOW },
    { label: "EPERM" },
    { op: "return", value: SECCOMP_RETURN.ERRNO | ERRNO.EPERM },
    { label: "ENOSYS" },
    { op: "return", value: SECCOMP_RETURN.ERRNO | ERRNO.ENOSYS },
  ]);
}

let built: Buffer | undefined;

/** The program, built once per process. */
export function syscallFilter(): Buffer {
  built ??= buildSyscallFilter();
  return built;
}

/**
 * The descriptor bubblewrap reads the program from (`--seccomp 10`): after
 * `--args 3`, the namespace descriptors 4-8 a shared-scope command gets, and
 * the launch gate's 9 (`GATE_DESCRIPTOR`, which `sh` reads: it names only
 * single-digit descriptors).
 */
export const FILTER_DESCRIPTOR = 10;
