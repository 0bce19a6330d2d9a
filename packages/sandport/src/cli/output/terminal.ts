import { CliSyntax } from "./cli-syntax.js";
import { type Colors, colorsFor } from "./colors.js";
import { Redactor } from "./redactor.js";

/** A writable stream the terminal writes to. */
export interface OutputStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

/**
 * Where the CLI's own output goes: results on stdout (tables for people,
 * JSON for machines), progress, warnings and errors on stderr. Everything
 * passes through the {@link Redactor}, then {@link CliSyntax} (hints in the
 * command line's terms); colours follow `NO_COLOR`, `FORCE_COLOR` and whether
 * each stream is a terminal.
 */
export class Terminal {
  /** Colours for stdout. */
  readonly color: Colors;
  /** Colours for stderr. */
  readonly errorColor: Colors;
  /** Secrets that must never be printed. */
  readonly redactor = new Redactor();
  /** Rewrites runtime constructor syntax in messages into `--option` flags, for the providers in use. */
  readonly syntax = new CliSyntax();
  readonly #stdout: OutputStream;
  readonly #stderr: OutputStream;

  constructor(stdout: OutputStream, stderr: OutputStream, env: NodeJS.ProcessEnv) {
    this.#stdout = stdout;
    this.#stderr = stderr;
    this.color = colorsFor(stdout, env);
    this.errorColor = colorsFor(stderr, env);
  }

  /** Whether stderr is a terminal (progress animates only there). */
  get interactive(): boolean {
    return this.#stderr.isTTY === true;
  }

  /** Writes one line (or block) of results to stdout. */
  line(text = ""): void {
    this.#stdout.write(`${this.#clean(text)}\n`);
  }

  /** Writes a value as pretty JSON to stdout. */
  json(value: unknown): void {
    // Each string is cleaned before it is quoted, so that a rewritten hint is not left with escaped quotes.
    const text = JSON.stringify(
      value,
      (_key, field: unknown) => (typeof field === "string" ? this.#clean(field) : field),
      2,
    );
    this.#stdout.write(`${this.redactor.redact(text)}\n`);
  }

  /** Writes a line to stderr (progress, notes). */
  note(text: string): void {
    this.#stderr.write(`${this.#clean(text)}\n`);
  }

  /** Writes raw text to stderr without a newline (progress animation). */
  rawError(text: string): void {
    this.#stderr.write(this.#clean(text));
  }

  /** Writes a warning to stderr. */
  warn(text: string): void {
    this.note(`${this.errorColor.yellow("warning:")} ${text}`);
  }

  #clean(text: string): string {
    return this.syntax.rewrite(this.redactor.redact(text));
  }

  /** Writes an error to stderr. */
  error(text: string): void {
    this.note(`${this.errorColor.red("error:")} ${text}`);
  }
}
