import { constants } from "node:os";
import type { TerminalSignal, TerminalSize } from "@sandport/core";

/**
 * The program that allocates a terminal inside the sandbox, in Perl because
 * `perl-base` is Essential on Debian (every Debian or Ubuntu base has it) and
 * its `ioctl` and `POSIX` reach everything a terminal needs, so a fresh
 * install needs no native build step. It runs as the command itself (under
 * bubblewrap, inside the sandbox's namespaces and mounts):
 *
 * 1. opens `/dev/ptmx` (the sandbox's own devpts instance), unlocks it, finds
 *    its `/dev/pts/N` and sets the window size (`TIOCSPTLCK`, `TIOCGPTN`,
 *    `TIOCSWINSZ`: the generic Linux numbers, shared by x86-64 and arm64);
 * 2. forks the program, which calls `setsid`, opens the terminal (which so
 *    becomes its controlling terminal; `TIOCSCTTY` makes sure), puts it on its
 *    stdin, stdout and stderr, sets `TERM` if the environment has none, and
 *    `exec`s (127 / 126 with a message on the terminal when it cannot);
 * 3. relays: terminal output goes to its stdout untouched; its stdin carries
 *    frames (one type byte, a 32-bit big-endian length, the payload): `d`
 *    bytes to type, `r` a new size (16-bit columns, 16-bit rows), `k` a
 *    signal number for the program's process group;
 * 4. when the program has ended, reads what it left on the terminal (until
 *    the terminal is closed, or nothing more came for 200 ms when a background
 *    job still holds it), then says how it ended on stderr.
 *
 * Its stderr carries only status lines, `sandport-terminal: <word> <value>`:
 * `ready <pid>` once the program is forked, `exit <code>` or `signal <number>`
 * at the end, `fail <reason>` when the terminal could not be made.
 */
export const TERMINAL_HELPER_SOURCE = String.raw`
use strict; use warnings;
use POSIX ();
use Fcntl qw(O_RDWR O_NOCTTY F_GETFL F_SETFL O_NONBLOCK);
my ($cols, $rows, @command) = @ARGV;
sub status { syswrite(STDERR, "sandport-terminal: $_[0]\n") }
sub fail { status("fail $_[0]"); POSIX::_exit(70) }
sysopen(my $master, "/dev/ptmx", O_RDWR | O_NOCTTY) or fail("cannot open /dev/ptmx: $!");
my $unlock = pack("i", 0);
ioctl($master, 0x40045431, $unlock) or fail("cannot unlock the terminal: $!");
my $number = pack("I", 0);
ioctl($master, 0x80045430, $number) or fail("cannot name the terminal: $!");
my $slave_path = "/dev/pts/" . unpack("I", $number);
my $size = pack("S4", $rows, $cols, 0, 0);
ioctl($master, 0x5414, $size) or fail("cannot size the terminal: $!");
$ENV{TERM} = "xterm-256color" unless defined $ENV{TERM};
pipe(my $wake_read, my $wake_write) or fail("pipe: $!");
$SIG{CHLD} = sub { syswrite($wake_write, "x") };
my $pid = fork() // fail("fork: $!");
if ($pid == 0) {
  $SIG{CHLD} = "DEFAULT";
  POSIX::setsid();
  sysopen(my $slave, $slave_path, O_RDWR) or do { syswrite(STDERR, "sandport: $slave_path: $!\n"); POSIX::_exit(126) };
  ioctl($slave, 0x540E, 0);
  POSIX::dup2(fileno($slave), $_) for 0 .. 2;
  POSIX::close(fileno($slave)) if fileno($slave) > 2;
  { no warnings "exec"; exec { $command[0] } @command; }
  my $code = $!{ENOENT} ? 127 : 126;
  syswrite(STDERR, "sandport: $command[0]: $!\r\n");
  POSIX::_exit($code);
}
status("ready $pid");
for my $handle ($master, \*STDIN) { my $flags = fcntl($handle, F_GETFL, 0); fcntl($handle, F_SETFL, $flags | O_NONBLOCK) }
my ($input, $pending, $stdin_open, $status) = ("", "", 1, undef);
sub relay {
  my ($chunk) = @_;
  my $offset = 0;
  while ($offset < length $chunk) {
    my $written = syswrite(STDOUT, $chunk, length($chunk) - $offset, $offset);
    if (!defined $written) { next if $!{EINTR}; POSIX::_exit(71) }
    $offset += $written;
  }
}
while (1) {
  my ($readable, $writable) = ("", "");
  vec($readable, fileno($master), 1) = 1;
  vec($readable, fileno($wake_read), 1) = 1 unless defined $status;
  vec($readable, 0, 1) = 1 if $stdin_open && !defined $status;
  vec($writable, fileno($master), 1) = 1 if length $pending && !defined $status;
  my $count = select($readable, $writable, undef, defined $status ? 0.2 : undef);
  if ($count < 0) { next if $!{EINTR}; fail("select: $!") }
  last if defined $status && $count == 0;
  if (vec($readable, fileno($wake_read), 1)) {
    sysread($wake_read, my $ignored, 64);
    $status = $? if waitpid($pid, POSIX::WNOHANG()) == $pid;
  }
  if (vec($readable, fileno($master), 1)) {
    my $read = sysread($master, my $chunk, 65536);
    if (!defined $read) { last unless $!{EAGAIN} || $!{EINTR} }
    elsif ($read == 0) { last }
    else { relay($chunk) }
  }
  if (vec($readable, 0, 1)) {
    my $read = sysread(STDIN, my $chunk, 65536);
    if (defined $read && $read == 0) { $stdin_open = 0 }
    elsif (defined $read) {
      $input .= $chunk;
      while (length($input) >= 5) {
        my ($type, $length) = unpack("a N", $input);
        last if length($input) < 5 + $length;
        my $payload = substr($input, 5, $length);
        substr($input, 0, 5 + $length) = "";
        if ($type eq "d") { $pending .= $payload }
        elsif ($type eq "r") { my ($c, $r) = unpack("n n", $payload); my $resized = pack("S4", $r, $c, 0, 0); ioctl($master, 0x5414, $resized) }
        elsif ($type eq "k") { kill(unpack("C", $payload), -$pid) }
      }
    }
  }
  if (length $pending && vec($writable, fileno($master), 1)) {
    my $written = syswrite($master, $pending);
    substr($pending, 0, $written) = "" if defined $written;
  }
}
if (!defined $status) { waitpid($pid, 0); $status = $? }
status(($status & 127) ? "signal " . ($status & 127) : "exit " . ($status >> 8));
POSIX::_exit(0);
`;

/** The program a terminal runs as: the helper, given the size and the command. */
export function terminalCommand(size: TerminalSize, command: readonly string[]): string[] {
  return ["perl", "-e", TERMINAL_HELPER_SOURCE, String(size.cols), String(size.rows), ...command];
}

/** Largest payload of one frame: bigger writes are split. */
const FRAME_PAYLOAD_BYTES = 65_536;

function frame(type: "d" | "r" | "k", payload: Uint8Array): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, "latin1");
  header.writeUInt32BE(payload.byteLength, 1);
  return Buffer.concat([header, payload]);
}

/** Frames that type `bytes` into the terminal. */
export function dataFrames(bytes: Uint8Array): Buffer {
  const frames: Buffer[] = [];
  for (let offset = 0; offset < bytes.byteLength; offset += FRAME_PAYLOAD_BYTES) {
    frames.push(frame("d", bytes.subarray(offset, offset + FRAME_PAYLOAD_BYTES)));
  }
  return Buffer.concat(frames);
}

/** The frame that resizes the terminal. */
export function resizeFrame(size: TerminalSize): Buffer {
  const payload = Buffer.alloc(4);
  payload.writeUInt16BE(size.cols, 0);
  payload.writeUInt16BE(size.rows, 2);
  return frame("r", payload);
}

/** The frame that sends `signal` to the program's process group. */
export function signalFrame(signal: TerminalSignal): Buffer {
  return frame("k", Uint8Array.of(constants.signals[signal]));
}

/** One status line of the helper: what it says and the rest of the line. */
export type HelperStatus =
  | { readonly kind: "ready" }
  | { readonly kind: "exit"; readonly code: number }
  | { readonly kind: "signal"; readonly signal: string }
  | { readonly kind: "fail"; readonly reason: string };

const STATUS_LINE = /^sandport-terminal: (ready|exit|signal|fail) (.*)$/;

/** The helper's status lines in `stderr`, and every other line (bubblewrap's or Perl's own complaints). */
export function readHelperStatus(stderr: string): { statuses: HelperStatus[]; other: string[] } {
  const statuses: HelperStatus[] = [];
  const other: string[] = [];
  for (const line of stderr.split("\n")) {
    const match = STATUS_LINE.exec(line);
    if (!match) {
      if (line.trim() !== "") other.push(line);
      continue;
    }
    const [, kind, rest = ""] = match;
    if (kind === "ready") statuses.push({ kind });
    else if (kind === "exit") statuses.push({ kind, code: Number(rest) });
    else if (kind === "signal") statuses.push({ kind, signal: signalName(Number(rest)) });
    else statuses.push({ kind: "fail", reason: rest });
  }
  return { statuses, other };
}

function signalName(number: number): string {
  const found = Object.entries(constants.signals).find(([, value]) => value === number);
  return found ? found[0] : `signal ${number}`;
}
