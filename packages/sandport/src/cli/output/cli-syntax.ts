import type { ProviderDescriptor } from "../providers/descriptor.js";

/** `new LocalRuntime({ isolation: "none" })`: a runtime's constructor with an object literal, as messages quote it. */
const CONSTRUCTOR = /\bnew ([A-Z][A-Za-z0-9]*Runtime)\(\{\s*([^{}]*?)\s*\}\)/g;
/** `LocalRuntime option killGraceMs`: how core's option reader names an option in a refusal. */
const OPTION_NAMED = /\b([A-Z][A-Za-z0-9]*Runtime) option ([a-z][A-Za-z0-9]*(?:\.[a-z][A-Za-z0-9]*)*)/g;
/** One `key: value` (or shorthand `key`) of an object literal; a value is a string, an array or a bare word. */
const ENTRY = /([a-z][A-Za-z0-9]*)(?:\s*:\s*("(?:[^"\\]|\\.)*"|\[[^\]]*\]|[^,\s]+))?/g;

/**
 * Rewrites what the runtimes' messages say in a library user's terms into the
 * command line's: `new LocalRuntime({ isolation: "none" })` becomes
 * `--option isolation=none`, `LocalRuntime option killGraceMs` becomes
 * `--option killGraceMs (SANDPORT_LOCAL_KILL_GRACE_MS)`. The runtimes keep
 * their messages for library users; the CLI translates what it prints. Only
 * options the provider declares for the CLI (and `owner`, which is `--owner`)
 * are translated; anything else is left as it is.
 */
export class CliSyntax {
  readonly #providers = new Map<string, ProviderDescriptor>();

  /** Teaches the rewriter a provider's runtime class and options. */
  add(descriptor: ProviderDescriptor): void {
    this.#providers.set(descriptor.runtimeExport, descriptor);
  }

  /** `text` with every recognised constructor call and option name in CLI syntax. */
  rewrite(text: string): string {
    if (this.#providers.size === 0 || !text.includes("Runtime")) return text;
    return text
      .replace(CONSTRUCTOR, (call, runtime: string, body: string) => {
        const descriptor = this.#providers.get(runtime);
        if (!descriptor) return call;
        const flags: string[] = [];
        for (const [, key = "", value] of body.matchAll(ENTRY)) {
          const flag = flagOf(descriptor, key, value === undefined ? `<${key}>` : plain(value));
          if (flag === undefined) return call;
          flags.push(flag);
        }
        return flags.length > 0 ? flags.join(" ") : call;
      })
      .replace(OPTION_NAMED, (phrase, runtime: string, name: string) => {
        const descriptor = this.#providers.get(runtime);
        if (name === "owner" && descriptor) return "--owner";
        const spec = descriptor?.options[name];
        return spec ? `--option ${name} (${spec.env})` : phrase;
      });
  }
}

/** The flag that sets option `key` to `value`, or `undefined` when the command line cannot set it. */
function flagOf(descriptor: ProviderDescriptor, key: string, value: string): string | undefined {
  if (key === "owner") return `--owner ${value}`;
  return key in descriptor.options ? `--option ${key}=${value}` : undefined;
}

/** A literal's text as a command line gives it: a string unquoted, an array comma-separated (a list option). */
function plain(literal: string): string {
  try {
    const value = JSON.parse(literal) as unknown;
    return Array.isArray(value) ? value.map(String).join(",") : String(value);
  } catch {
    return literal;
  }
}
