/**
 * A script that runs `command` with each of its output streams cut off after
 * `streamLimitBytes` bytes, for providers whose exec returns output only once
 * the command has ended (and so cannot stop an endless producer at the cap by
 * itself). Each stream passes through `head -c`; once a stream has reached
 * its limit, `head` exits and the command's next write to that stream kills it
 * with `SIGPIPE`, so `yes` stops at the cap instead of at its timeout.
 *
 * Give a limit one byte above the caller's cap: a stream then arrives with
 * more than the cap exactly when the command wrote more than the cap to it.
 * The script exits with the command's own status (the status of a command
 * `SIGPIPE` killed is `141`). Stdin reaches the command unchanged.
 *
 * `command` runs in a subshell, so an `exec` in it (as `composeShellCommand`
 * writes) replaces only that subshell. It must be a complete command list, as
 * the kit composes them (a `#` comment in it would hide the closing parenthesis).
 * The script uses descriptors 3 to 6 for its plumbing and closes them for the command.
 */
export function cappedOutputScript(command: string, streamLimitBytes: number): string {
  if (!Number.isInteger(streamLimitBytes) || streamLimitBytes < 1) {
    throw new RangeError(`streamLimitBytes must be a positive integer, got ${streamLimitBytes}`);
  }
  const limit = String(streamLimitBytes);
  // fd 3/4: the real stdout/stderr; fd 5: the pipe to stdout's head; fd 6: the exit status.
  return [
    "exec 3>&1 4>&2",
    "s=$( { { { (",
    command,
    `) 2>&1 1>&5 3>&- 4>&- 5>&- 6>&-; echo "$?" >&6; } | head -c ${limit} >&4 3>&- 4>&- 5>&- 6>&-; } 5>&1 | head -c ${limit} >&3 3>&- 4>&- 6>&-; } 6>&1 )`,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
    'exit "${s:-125}"',
  ].join("\n");
}
