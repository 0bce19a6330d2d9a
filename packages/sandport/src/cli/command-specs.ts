import type { CliContext } from "./context.js";

/** A command's action: resolves the process exit code. */
export type Action = (context: CliContext, flags: never, operands: string[]) => Promise<number>;

/** One flag: `[flags, description]`, plus a default for a flag that takes a value. */
export type FlagSpec = readonly [flags: string, description: string, defaultValue?: string];

/** One command of the `sandport` command line, as data: what it is called, its flags, where its code is. */
export interface CommandSpec {
  readonly name: string;
  readonly description: string;
  /** Whether `--provider` must be given (else the command works on every provider). */
  readonly providerRequired: boolean;
  /** A variadic operand and its description (`run`'s command). */
  readonly operands?: FlagSpec;
  /** Flags that must be given. */
  readonly required?: readonly FlagSpec[];
  readonly flags?: readonly FlagSpec[];
  /** Flags that may be given several times; absent, they are `[]`. */
  readonly repeatable?: readonly FlagSpec[];
  /** Imports the command's module, when the command runs. */
  readonly load: () => Promise<{ readonly default: Action }>;
}

const JSON_FLAG = (what: string): FlagSpec => ["--json", `print ${what} as JSON`];

/** Every command, in the order `--help` lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  {
    name: "doctor",
    description: "what works on this machine and why not: isolation, Node, SDKs, credentials (names only)",
    providerRequired: false,
    flags: [JSON_FLAG("the checks")],
    load: () => import("./commands/doctor.js"),
  },
  {
    name: "capabilities",
    description: "the resolved capability table: structural, declared, observed or absent (and why)",
    providerRequired: false,
    flags: [JSON_FLAG("the table")],
    repeatable: [
      ["--evidence <file>", "apply a canary's evidence record"],
      [
        "--live-endpoint <url>",
        "a custom endpoint that is the provider's real service (self-hosted): its evidence may promote",
      ],
    ],
    load: () => import("./commands/capabilities.js"),
  },
  {
    name: "run",
    description: "one workload: launch, write files, run CMD (output live), collect, tear down; exits with CMD's code",
    providerRequired: true,
    operands: ["<command...>", "the command to run in the sandbox, after --"],
    flags: [
      ["--timeout <duration>", "kill the command after this long (e.g. 90s, 10m); exit 124"],
      ["--json", "print one JSON result instead of streaming output"],
      ["--quiet", "no progress on stderr: only the command's own output"],
      ["--prices <file>", "a JSON price table of your own, for a cost estimate in the usage line"],
    ],
    repeatable: [
      ["--file <local[:remote]>", "copy a local file in; remote defaults to its base name"],
      ["--collect <path[:local]>", "copy a workspace file out afterwards, even when CMD failed"],
      ["--env <key=value>", "environment variable for the command"],
      ["--label <key=value>", "label for the sandbox"],
    ],
    load: () => import("./commands/run.js"),
  },
  {
    name: "canary",
    description: "conformance suite and capability probes against a live provider; writes an evidence record",
    providerRequired: true,
    flags: [
      ["--out <file>", "where to write the evidence record", "evidence/<provider>.json"],
      ["--run-id <id>", "identifies this run in the record and in sandbox labels (default: from CI, else local)"],
      ["--idle <duration>", "how long the warm-lease probe leaves a sandbox idle", "30s"],
      JSON_FLAG("the evidence record"),
    ],
    repeatable: [["--skip-check <id>", "skip a conformance check by id"]],
    load: () => import("./commands/canary.js"),
  },
  {
    name: "sweep",
    description:
      "find owned sandboxes (and, with --snapshots, snapshots) older than a duration; with --yes destroy them and verify each is gone",
    providerRequired: true,
    required: [["--older-than <duration>", "only sandboxes created longer ago than this (e.g. 2h, 0s)"]],
    flags: [
      ["--yes", "destroy them (default: list only)"],
      ["--snapshots", "also the owner's snapshots (runtimes with listSnapshots and deleteSnapshot)"],
      JSON_FLAG("the outcome"),
    ],
    repeatable: [["--label <key=value>", "only sandboxes carrying this label"]],
    load: () => import("./commands/sweep.js"),
  },
];
