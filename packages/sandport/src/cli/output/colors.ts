import picocolors from "picocolors";

/** The colour functions the CLI uses: each returns its text unchanged when colour is off. */
export type Colors = ReturnType<typeof picocolors.createColors>;

/** A stream that may be a terminal. */
export interface MaybeTerminal {
  readonly isTTY?: boolean;
}

/**
 * Whether to colour what goes to `stream`: never when `NO_COLOR` is set to
 * anything but the empty string (no-color.org) or `TERM=dumb`; always when
 * `FORCE_COLOR` is set to anything but `0`; otherwise only on a terminal.
 */
export function wantsColor(stream: MaybeTerminal, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return true;
  return stream.isTTY === true && env.TERM !== "dumb";
}

/** Colour functions for `stream`, on or off as {@link wantsColor} decides. */
export function colorsFor(stream: MaybeTerminal, env: NodeJS.ProcessEnv): Colors {
  return picocolors.createColors(wantsColor(stream, env));
}
