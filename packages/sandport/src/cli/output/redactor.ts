/**
 * Replaces secret values with `[redacted]` in everything the CLI itself
 * prints (messages, tables, JSON, errors from SDKs that echo a request). The
 * provider layer registers each credential it reads; nothing registers output
 * of the user's own command, which `run` passes through untouched.
 */
export class Redactor {
  readonly #secrets = new Set<string>();

  /** Registers a value never to print. Values shorter than 4 characters are ignored: they would mask ordinary text. */
  add(secret: string): void {
    if (secret.length >= 4) this.#secrets.add(secret);
  }

  /** `text` with every registered secret replaced. */
  redact(text: string): string {
    let clean = text;
    for (const secret of this.#secrets) clean = clean.split(secret).join("[redacted]");
    return clean;
  }
}
