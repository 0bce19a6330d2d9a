import assert from "node:assert/strict";
import type {
  ExecRequest,
  FileInput,
  LaunchSpec,
  OpOptions,
  SandboxHandle,
  SandboxRuntime,
  SandportError,
} from "@sandport/core";
import { expectCode, fileExists } from "./assertions.js";

/** What {@link assertTyposRefused} probes: one runtime, one live sandbox of it, and how to count provider calls. */
export interface TypoProbe<H extends SandboxHandle> {
  /** The runtime under test. */
  readonly runtime: SandboxRuntime<H>;
  /** A live sandbox of it. */
  readonly handle: H;
  /** Builds another runtime with `extra` over working options (the constructor must refuse a typo). */
  construct(extra: Record<string, unknown>): unknown;
  /** A misspelt option of this runtime and the option it should suggest, e.g. `["roto", "root"]`. */
  readonly optionTypo: readonly [typo: string, meant: string];
  /**
   * Calls that reached the provider so far (an emulator's request count, a
   * fake's call count). None may be added by a refused call.
   */
  providerCalls(): number;
}

/**
 * Asserts that a runtime refuses typos with `INVALID_REQUEST` naming the
 * unknown key and the nearest known one, before any provider call: in its
 * constructor's options, an `ExecRequest` (through every exec-like method it
 * has), an `OpOptions`, a `FileInput`, a `LaunchSpec` and its `resources`;
 * that a number given as a string says it got a string; and that a file mode
 * with setuid, setgid or sticky bits is refused.
 */
export async function assertTyposRefused<H extends SandboxHandle>(probe: TypoProbe<H>): Promise<void> {
  const { runtime, handle } = probe;
  const [typo, meant] = probe.optionTypo;
  const names = (error: SandportError, key: string, nearest: string, what: string) => {
    assert.ok(error.message.includes(key), `${what}: the refusal names ${key}: ${error.message}`);
    assert.ok(error.message.includes(`did you mean ${nearest}?`), `${what}: suggests ${nearest}: ${error.message}`);
  };

  const option = await expectCode(() => probe.construct({ [typo]: "x" }), "INVALID_REQUEST", `option ${typo}`);
  names(option, typo, meant, `option ${typo}`);
  assert.equal(option.details.field, typo);
  const text = await expectCode(() => probe.construct({ runBudgetMs: "1000" }), "INVALID_REQUEST", "runBudgetMs text");
  assert.match(text.message, /runBudgetMs must be a number, got string "1000"/);

  const before = probe.providerCalls();
  const probeFile = "typo-probe-ran.txt";
  const shell = `echo ran >> ${probeFile}`;
  const typoRequest = { shell, tiemoutMs: 5 } as ExecRequest;
  const execLike: [string, () => unknown][] = [
    ["exec", () => runtime.exec(handle, typoRequest)],
    ["exec op", () => runtime.exec(handle, { shell }, { timeoutMS: 5 } as OpOptions)],
  ];
  if (runtime.execStream) {
    execLike.push(["execStream", async () => runtime.execStream!(handle, typoRequest)[Symbol.asyncIterator]().next()]);
  }
  if (runtime.spawn) execLike.push(["spawn", () => runtime.spawn!(handle, typoRequest)]);
  if (runtime.startCommand) {
    execLike.push(["startCommand", () => runtime.startCommand!(handle, { ...typoRequest, sessionId: "typo-probe" })]);
  }
  if (runtime.startCommand) {
    const session = await expectCode(
      () => runtime.startCommand!(handle, { shell, sesionId: "typo-probe" } as never),
      "INVALID_REQUEST",
      "startCommand with sesionId",
    );
    names(session, "sesionId", "sessionId", "startCommand");
  }
  for (const [what, call] of execLike) {
    const error = await expectCode(call, "INVALID_REQUEST", `${what} with a typo`);
    names(error, what === "exec op" ? "timeoutMS" : "tiemoutMs", "timeoutMs", what);
  }
  const stringTimeout = await expectCode(
    () => runtime.exec(handle, { shell, timeoutMs: "1000" as unknown as number }),
    "INVALID_REQUEST",
    "exec with timeoutMs as a string",
  );
  assert.match(stringTimeout.message, /timeoutMs must be a number, got string "1000"/);

  const files: [string, FileInput, string][] = [
    ["mdoe", { path: "typo.txt", content: "x", mdoe: 0o644 } as FileInput, "mode"],
    ["0o4755", { path: "typo.txt", content: "x", mode: 0o4755 }, ""],
    ["0o2755", { path: "typo.txt", content: "x", mode: 0o2755 }, ""],
    ["0o1777", { path: "typo.txt", content: "x", mode: 0o1777 }, ""],
  ];
  for (const [what, file, nearest] of files) {
    const error = await expectCode(() => runtime.writeFiles(handle, [file]), "INVALID_REQUEST", `a file with ${what}`);
    if (nearest !== "") names(error, what, nearest, `a file with ${what}`);
    else assert.match(error.message, /mode must be an integer from 0 to 0o777/);
  }

  const launches: [LaunchSpec, string, string][] = [
    [{ lables: { a: "b" } } as LaunchSpec, "lables", "labels"],
    [{ resources: { cpu: 1 } } as LaunchSpec, "cpu", "cpus"],
  ];
  for (const [spec, key, nearest] of launches) {
    names(await expectCode(() => runtime.launch(spec), "INVALID_REQUEST", `launch with ${key}`), key, nearest, key);
  }

  assert.equal(probe.providerCalls() - before, 0, "a refused call reached the provider");
  assert.equal(await fileExists(runtime, handle, probeFile), false, "a refused request ran its command");
  await expectCode(() => runtime.readFile(handle, "typo.txt"), "NOT_FOUND", "the refused file");
}
