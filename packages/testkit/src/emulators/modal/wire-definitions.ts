/**
 * The Modal wire definitions (protobuf codecs and gRPC service descriptions),
 * taken at run time from the installed `modal` package.
 *
 * The SDK ships no `.proto` files and exports none of its generated code: the
 * ts-proto output (`ModalClientDefinition`, `TaskCommandRouterDefinition`,
 * one `MessageFns` object per message) is inlined in `dist/index.cjs` as
 * module-scope bindings. This module reads that file, appends one statement
 * that hands those bindings out, and evaluates the result as a CommonJS module
 * with a `require` rooted at the file itself (so its own dependencies resolve
 * as usual). Nothing of the SDK is copied into this repository, and the wire
 * format is always exactly the installed version's.
 *
 * @module
 */

import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { compileFunction } from "node:vm";

/** A ts-proto message codec, as far as the emulator uses it. */
export interface MessageCodec {
  encode(message: unknown): { finish(): Uint8Array };
  decode(input: Uint8Array): unknown;
  fromJSON(value: unknown): unknown;
  toJSON(message: unknown): unknown;
}

/** One method of a ts-proto (nice-grpc flavour) service definition. */
export interface WireMethod {
  /** The method name on the wire (`SandboxCreateV2`). */
  readonly name: string;
  readonly requestType: MessageCodec;
  readonly responseType: MessageCodec;
  readonly requestStream: boolean;
  readonly responseStream: boolean;
}

/** A ts-proto (nice-grpc flavour) service definition. */
export interface WireService {
  /** Fully qualified service name (`modal.client.ModalClient`). */
  readonly fullName: string;
  readonly methods: Readonly<Record<string, WireMethod>>;
}

/** Everything the emulator needs from the installed SDK. */
export interface ModalWire {
  /** `modal.client.ModalClient`: the control plane. */
  readonly controlPlane: WireService;
  /** `modal.task_command_router.TaskCommandRouter`: the per-task exec service. */
  readonly commandRouter: WireService;
  /** `google.rpc.Status`, sent in `grpc-status-details-bin`. */
  readonly rpcStatus: MessageCodec;
  /** `modal.client.RPCRetryPolicy`, the detail that makes the SDK wait and retry. */
  readonly retryPolicy: MessageCodec;
  /** Version of the installed `modal` package. */
  readonly sdkVersion: string;
}

const EXPORTED_BINDINGS = {
  controlPlane: "ModalClientDefinition",
  commandRouter: "TaskCommandRouterDefinition",
  rpcStatus: "RPCStatus",
  retryPolicy: "RPCRetryPolicy",
} as const;

const HANDOUT = "__sandportModalWire";

/** The `modal` peer range the emulator supports (the Modal Labs SDK; `modal@latest` is an unrelated package). */
export const MODAL_RANGE = ">=0.11.1 <0.12";

let loaded: Promise<ModalWire> | undefined;

/**
 * The wire definitions of the `modal` package resolvable from this module
 * (loaded once per process). Rejects with an error that says what to install
 * when the package is missing or is not the Modal Labs SDK.
 */
export function loadModalWire(): Promise<ModalWire> {
  loaded ??= readWire().catch((error: unknown) => {
    loaded = undefined;
    throw error;
  });
  return loaded;
}

async function readWire(): Promise<ModalWire> {
  let entry: string;
  try {
    // The `require` condition of `modal`'s exports map: dist/index.cjs.
    entry = createRequire(import.meta.url).resolve("modal");
  } catch (error) {
    throw new Error(
      `the Modal emulator needs the optional peer dependency "modal" (${MODAL_RANGE}, the Modal Labs SDK, whose ` +
        "wire definitions it reads) of @sandport/testkit, which could not be resolved. Install it next to " +
        "@sandport/testkit; the `latest` tag of `modal` is an unrelated package.",
      { cause: error },
    );
  }
  const manifest = JSON.parse(await readFile(join(dirname(dirname(entry)), "package.json"), "utf8")) as {
    name?: string;
    version?: string;
    repository?: { url?: string } | string;
  };
  const repository = typeof manifest.repository === "string" ? manifest.repository : manifest.repository?.url;
  if (manifest.name !== "modal" || !/modal-labs\//.test(repository ?? "")) {
    throw new Error(
      `the installed \`modal\` package (${manifest.version ?? "no version"}, ${repository ?? "no repository"}) is not the Modal Labs SDK; install modal@"${MODAL_RANGE}"`,
    );
  }
  const handout = Object.entries(EXPORTED_BINDINGS)
    .map(([key, binding]) => `${key}: typeof ${binding} === "undefined" ? undefined : ${binding}`)
    .join(", ");
  const source = `${await readFile(entry, "utf8")}\n;module.exports.${HANDOUT} = { ${handout} };\n`;
  const run = compileFunction(source, ["exports", "require", "module", "__filename", "__dirname"], {
    filename: entry,
  });
  const module = { exports: {} as Record<string, unknown> };
  run.call(module.exports, module.exports, createRequire(entry), module, entry, dirname(entry));
  const found = module.exports[HANDOUT] as Record<keyof typeof EXPORTED_BINDINGS, unknown>;
  const missing = Object.entries(EXPORTED_BINDINGS)
    .filter(([key]) => found[key as keyof typeof EXPORTED_BINDINGS] === undefined)
    .map(([, binding]) => binding);
  if (missing.length > 0) {
    throw new Error(
      `modal@${manifest.version} no longer has ${missing.join(", ")} in ${entry}; the emulator supports modal 0.11.x`,
    );
  }
  const controlPlane = found.controlPlane as WireService;
  const commandRouter = found.commandRouter as WireService;
  if (
    controlPlane.fullName !== "modal.client.ModalClient" ||
    commandRouter.fullName !== "modal.task_command_router.TaskCommandRouter"
  ) {
    throw new Error(`unexpected service names in modal@${manifest.version}`);
  }
  return {
    controlPlane,
    commandRouter,
    rpcStatus: found.rpcStatus as MessageCodec,
    retryPolicy: found.retryPolicy as MessageCodec,
    sdkVersion: manifest.version ?? "",
  };
}
