/**
 * Every check the conformance suite can run, by stable id, with what it asserts.
 *
 * The id prefixes the test's title (`files.binary: ...`), names the check in
 * `RuntimeConformanceOptions.skip`, and never changes meaning once published.
 */
export const CONFORMANCE_CHECKS = {
  "files.text": "UTF-8 text, an empty file and an overwrite with shorter content read back byte-identical",
  "files.binary": "all 256 byte values (and 1 MiB of every byte value) round-trip exactly",
  "files.nested": "nested directories are created; absolute paths inside the workspace name the same file",
  "files.many": "writeFiles of 200 files in one call reads every one back equal",
  "files.mode": "a file written with mode 0o755 is executable by exec",
  "files.shared-with-exec": "files written by writeFiles are seen by commands, and files made by commands are readable",
  "files.not-found": "reading a missing file rejects with NOT_FOUND",
  "files.max-bytes":
    "readFile returns a file of exactly maxBytes, refuses one byte more with OUTPUT_LIMIT and a malformed maxBytes with INVALID_REQUEST",
  "files.path-escapes": "'..', absolute-outside, percent-encoded and NUL paths are refused with INVALID_REQUEST",
  "files.batch-refused": "a writeFiles batch with one bad entry writes none of its files",
  "files.symlink-escapes": "reads and writes through a symlink that points outside the workspace are refused",
  "files.stream":
    "readFileStream's chunks join to the file's exact bytes (16 MiB, all 256 byte values, an absolute path, an empty file, a file made by a command)",
  "files.stream-refusals":
    "readFileStream refuses a missing file (NOT_FOUND), escaping paths and symlinks leading out (INVALID_REQUEST), a file past maxBytes (OUTPUT_LIMIT) and a malformed maxBytes (INVALID_REQUEST)",
  "files.stream-abort":
    "aborting a readFileStream mid-file rejects a further pull with ABORTED; an aborted signal is refused; after an abort and a break the file streams whole again",
  "files.stream-destroyed":
    "destroying the sandbox mid-stream rejects a further pull with NOT_FOUND; a stream of a destroyed sandbox is NOT_FOUND",
  "exec.argv-verbatim": "argv elements (quotes, spaces, $(), newlines, unicode, empty) arrive byte-identical",
  "exec.shell": "a shell request runs with sh semantics (pipes, expansion, redirection)",
  "exec.cwd": "cwd (relative, absolute inside the workspace) is the working directory; a missing one runs nothing",
  "exec.cwd-anywhere":
    "an absolute cwd outside the workspace (/tmp, /) is the working directory (exec, spawn, startCommand); a relative one is still the workspace's",
  "exec.cwd-missing":
    "a missing cwd, absolute or relative, is NOT_FOUND naming it in details.cwd (exec, spawn, startCommand), and runs nothing",
  "exec.env": "launch env and request env arrive; request env overrides launch env",
  "exec.env-isolation": "a variable in the test process's own environment is invisible at launch and at exec",
  "exec.exit-code": "a non-zero exit resolves with its exit code instead of throwing",
  "exec.output-streams": "stdout and stderr are separate, or stderr is empty when the declared mode is combined",
  "exec.utf8-output": "300 KiB of multi-byte UTF-8 output comes back exactly (no chunk-boundary damage)",
  "exec.stdin": "stdin (text, all 256 byte values, 1 MiB) reaches the command; unread or absent stdin is harmless",
  "exec.concurrent": "16 commands and 16 writeFiles at once on one sandbox each get their own result",
  "exec.result-shape": "results carry durationMs, false flags, and the declared isolation where reported",
  "exec.timeout": "timeoutMs kills the command and its children (setsid ones too): timedOut, exitCode null, promptly",
  "exec.abort": "aborting rejects ABORTED promptly with the reason as cause, and the command is killed",
  "exec.op-deadline": "an OpOptions.timeoutMs deadline rejects DEADLINE_EXCEEDED promptly and stops the command",
  "exec.abort-before-start": "an already-aborted signal rejects ABORTED and the command never runs",
  "exec.output-cap": "past maxOutputBytes the result is truncated and keeps exactly the first maxOutputBytes bytes",
  "exec.output-cap-stops": "an endless producer is stopped at the output cap, well before its timeout",
  "exec.invalid-requests": "bad timeouts, env names, argv, shell, cwd and caps are refused before anything runs",
  "lifecycle.handle": "a handle is plain data: right id, provider and labels, and it still works after JSON",
  "lifecycle.reattach": "getById returns a working handle to the same sandbox",
  "lifecycle.reattach-new-instance": "a second runtime instance (fixture.reopen) reattaches by id",
  "lifecycle.reattach-unknown": "getById of an id that never existed resolves undefined",
  "lifecycle.hostile-ids": "ids like '..', '/etc' or 'a/b' are never found, and handles carrying them touch nothing",
  "lifecycle.label-search": "findByLabels finds exactly the sandboxes carrying every given label",
  "lifecycle.separate-workspaces": "a file written in one sandbox is absent from another",
  "lifecycle.invalid-launch": "an invalid launch spec is refused with INVALID_REQUEST and creates nothing",
  "lifecycle.network-policy":
    "a malformed network policy is INVALID_REQUEST, one beyond the declared networkPolicy UNSUPPORTED; neither sends a request nor creates a sandbox",
  "lifecycle.network-allow":
    "from inside: an allow list's name (domains) or address (cidr) fetches its server's body, others fail; network none reaches neither",
  "lifecycle.snapshot-refused":
    "without snapshots, a launch from a snapshot is UNSUPPORTED, sends no request and creates nothing",
  "lifecycle.destroy":
    "destroy is verified: afterwards lookups find nothing, operations fail NOT_FOUND, again resolves",
  "lifecycle.destroy-running": "destroying a sandbox while a command runs settles that command's call promptly",
  "lifecycle.aborted-calls":
    "every method given an already-aborted signal rejects ABORTED (reason as cause), doing nothing",
  "lifecycle.destroyed-validation": "invalid requests against a destroyed sandbox still fail INVALID_REQUEST",
  "lifecycle.detached-launch": "launchDetached returns a handle that can be found and destroyed",
  "lifecycle.stop-start": "stop then start leaves a sandbox that runs commands (and keeps files if persistent)",
  "lifecycle.fork":
    "fork makes a new sandbox, labelled like its source (or as told), with its files; later writes to either stay apart; both are listed; destroying the source leaves the fork; a fork of a destroyed sandbox is NOT_FOUND",
  "lifecycle.stop-keeps":
    "stop then start keeps what stopKeeps declares: a file (filesystem), also a background loop that goes on counting from its memory (filesystem+memory), nothing (nothing)",
  "async.start-status-logs": "startCommand → status running, partial logs → exited → full logs with exit code",
  "async.idempotent-session": "the same sessionId twice returns the same command, which ran once",
  "async.reattach": "a started command is found again through a reattached handle (and a new instance)",
  "async.timeout": "an async command's timeoutMs kills it: exited, logs timedOut, exitCode null",
  "async.env-isolation": "async commands see request env and not the test process's environment",
  "async.invalid-requests": "an invalid startCommand request is refused with INVALID_REQUEST and nothing runs",
  "async.unknown-command": "commandStatus of an unknown command rejects (NOT_FOUND) instead of inventing a status",
  "streaming.events": "execStream yields started first, exited last (once each), chunks that add up to the result",
  "streaming.order": "output arrives in order within each stream, and across streams when combined",
  "streaming.live": "output is delivered while the command runs, not only after exit",
  "streaming.exit-code": "a non-zero exit ends the stream with an exited event instead of throwing",
  "streaming.timeout": "a streamed command past timeoutMs ends with exited, timedOut true",
  "streaming.abort": "aborting a stream rejects the iteration with ABORTED promptly",
  "streaming.early-break": "breaking out of for-await stops the command",
  "streaming.env-isolation": "streamed commands see request env and not the test process's environment",
  "streaming.invalid-requests": "an invalid streamed request is refused with INVALID_REQUEST",
  "fileops.mkdir-stat": "mkdir creates parents and is idempotent; stat reports kind, size, name, path",
  "fileops.list-dir": "listDir lists exactly a directory's entries with their kinds",
  "fileops.remove": "remove deletes files and trees, succeeds when absent, and refuses the workspace root",
  "fileops.not-found": "stat and listDir of a missing path reject with NOT_FOUND",
  "fileops.path-escapes": "listDir, stat, mkdir and remove refuse escaping paths with INVALID_REQUEST",
  "interactive.conversation":
    "spawn: lines written to stdin are answered one by one while it runs; closeStdin ends it with its exit code",
  "interactive.kill":
    "kill() ends a spawned process promptly (exitCode null), twice is fine, a later write is NOT_FOUND",
  "interactive.abort": "aborting op.signal after spawn resolved kills the process promptly",
  "interactive.binary-output": "all 256 byte values written to a spawned cat come back exactly in the events' bytes",
  "exec.binary-output": "all 256 byte values printed by a command arrive exactly in execStream's bytes",
  "exec.timeout-result":
    "exec: killed by timeoutMs → timedOut, exitCode null, not truncated, durationMs ≥ the budget and bounded",
  "exec.output-cap-result":
    "exec: an endless producer stopped at maxOutputBytes → truncated, not timedOut, exitCode null, ≤ the cap kept",
  "exec.kill-deadline":
    "exec: a command ignoring SIGTERM is still killed at its timeoutMs, its result comes promptly, nothing runs on",
  "exec.signal-exit":
    "exec: a command killed by a signal the runtime did not send → timedOut and truncated false, output kept",
  "exec.exit-after-output":
    "exec: a non-zero exit right after 64 KiB of output → that exit code, every byte, both flags false",
  "streaming.timeout-result":
    "execStream: killed by timeoutMs → timedOut, exitCode null, not truncated, durationMs ≥ the budget and bounded",
  "streaming.output-cap-result":
    "execStream: an endless producer stopped at maxOutputBytes → truncated, not timedOut, exitCode null, ≤ the cap kept",
  "streaming.kill-deadline":
    "execStream: a command ignoring SIGTERM is still killed at its timeoutMs, its result comes promptly, nothing runs on",
  "streaming.signal-exit":
    "execStream: a command killed by a signal the runtime did not send → timedOut and truncated false, output kept",
  "streaming.exit-after-output":
    "execStream: a non-zero exit right after 64 KiB of output → that exit code, every byte, both flags false",
  "interactive.timeout-result":
    "spawn: killed by timeoutMs → timedOut, exitCode null, not truncated, durationMs ≥ the budget and bounded",
  "interactive.output-cap-result":
    "spawn: an endless producer stopped at maxOutputBytes → truncated, not timedOut, exitCode null, ≤ the cap kept",
  "interactive.kill-deadline":
    "spawn: a command ignoring SIGTERM is still killed at its timeoutMs, its result comes promptly, nothing runs on",
  "interactive.signal-exit":
    "spawn: a command killed by a signal the runtime did not send → timedOut and truncated false, output kept",
  "interactive.exit-after-output":
    "spawn: a non-zero exit right after 64 KiB of output → that exit code, every byte, both flags false",
  "async.timeout-result":
    "startCommand: killed by timeoutMs → timedOut, exitCode null, not truncated, durationMs ≥ the budget and bounded",
  "async.output-cap-result":
    "startCommand: an endless producer stopped at maxOutputBytes → truncated, not timedOut, exitCode null, ≤ the cap kept",
  "async.kill-deadline":
    "startCommand: a command ignoring SIGTERM is still killed at its timeoutMs, its result comes promptly, nothing runs on",
  "async.signal-exit":
    "startCommand: a command killed by a signal the runtime did not send → timedOut and truncated false, output kept",
  "async.exit-after-output":
    "startCommand: a non-zero exit right after 64 KiB of output → that exit code, every byte, both flags false",
  "interactive.kill-result":
    "kill() and an abort after the start each end a spawned command with exitCode null, timedOut and truncated false",
  "limits.memory":
    "a memory bomb under resources.memoryMiB is killed with limit 'memory', not timedOut; the next command runs",
  "limits.processes":
    "a fork bomb under resources.maxProcesses fails with limit 'processes', not timedOut; the next command forks and runs",
  "limits.disk":
    "a write past resources.diskMiB fails with ENOSPC, having written no more than the bound, with limit 'disk'; once freed, the next command runs",
  "limits.refused":
    "a resource limit (memory, cpus, processes, disk) declared unsupported or not-exposed is refused at launch with UNSUPPORTED, and nothing is launched",
  "snapshots.round-trip":
    "a launch from a snapshot (ref or id) has the files as taken; listSnapshots finds it; once deleted, a launch from it is NOT_FOUND",
  "terminal.echo":
    "openTerminal: typed bytes come back echoed by the terminal and printed by cat; Ctrl-D ends it, exit 0",
  "terminal.resize": "resize is seen by stty size inside and delivers SIGWINCH to the foreground job",
  "terminal.ctrl-c":
    "Ctrl-C (\\x03) interrupts an interactive shell's foreground sleep, which the shell reports as 130",
  "terminal.exit-code": "a terminal's program's exit code ends its events, after all its output, signal null",
  "terminal.full-screen":
    "a full-screen program's escape sequences (clear, cursor moves, alternate screen) arrive byte for byte",
  "terminal.timeout": "a terminal that outlives its timeoutMs is killed: exited with timedOut true, exitCode null",
  "terminal.kill":
    "kill('SIGTERM') reaches the program (exited says SIGTERM, exitCode null), or is UNSUPPORTED, nothing sent, where only SIGKILL exists; kill() after the end is fine; SIGSTOP is refused",
  "terminal.abort":
    "aborting op.signal after openTerminal resolved kills the program promptly: exitCode null, no flags",
  "terminal.invalid-requests":
    "bad cols/rows, env names, stdin, or argv with shell are INVALID_REQUEST; so is a bad resize",
  "ports.http": "a server started in the sandbox serves a file through portEndpoint (its headers included)",
  "port.op-options":
    "a malformed signal or timeoutMs in the per-call options is INVALID_REQUEST from every method, before any request",
  "port.session-id": "a sessionId outside 1-128 of [A-Za-z0-9._-] (e.g. 'job 42') is INVALID_REQUEST; 'job-42' works",
  "port.label-query":
    "findByLabels({}) lists every sandbox of this runtime; findByLabels(undefined) is INVALID_REQUEST",
  "capabilities.port-shape": "specificationVersion, provider and workspaceRoot are well-formed",
  "capabilities.consistent": "assertCapabilitiesConsistent does not throw; no optional member is a non-function",
  "capabilities.structural": "each structural capability is true with all its methods, or absent with none of them",
  "capabilities.exercised": "no check that exercises a capability claimed true failed in this run",
  "capabilities.declared": "declared values are legal; the checkable ones (modes, cleanup) were checked",
} as const;

/** The id of one conformance check; see {@link CONFORMANCE_CHECKS}. */
export type ConformanceCheckId = keyof typeof CONFORMANCE_CHECKS;

/** True when `value` names a conformance check. */
export function isConformanceCheckId(value: string): value is ConformanceCheckId {
  return Object.hasOwn(CONFORMANCE_CHECKS, value);
}
