// How Modal's vendor command reads the end of an exec from the SDK, through a
// tiny fake of the SDK's process (the emulator cannot make the SDK's own exec
// deadline pass before the engine's budget): an exit code is an exit, the
// SDK's "deadline exceeded" on the wait is Modal's timeout, and any other
// failure is a lost command, never a timeout.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { VendorEnd } from "@sandport/core/adapter";
import type { ModalContainerProcess, ModalSandbox } from "./internal/sdk-types.js";
import { type CommandPlan, modalCommand } from "./vendor-command.js";

const plan: CommandPlan = {
  argv: ["true"],
  cwd: "/workspace",
  env: {},
  marker: "m-1",
  timeoutMs: 1_000,
  maxOutputBytes: 1024,
  interactive: false,
};

/** A sandbox whose one exec writes `chunk` to stdout and whose wait settles as `wait` says. */
function sandboxWith(wait: () => Promise<number>, chunk = Uint8Array.of(0xff)): ModalSandbox {
  const readable = (chunks: Uint8Array[]) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const each of chunks) controller.enqueue(each);
        controller.close();
      },
    });
  const process = {
    stdin: new WritableStream<Uint8Array>(),
    stdout: readable([chunk]),
    stderr: readable([]),
    wait,
  } as unknown as ModalContainerProcess;
  return { sandboxId: "sb-1", exec: async () => process } as unknown as ModalSandbox;
}

async function endOf(sandbox: ModalSandbox): Promise<{ end: VendorEnd | unknown; output: number[] }> {
  const output: number[] = [];
  const started = await modalCommand(sandbox, plan).start(
    (_stream, data) => output.push(...(data as Uint8Array)),
    new AbortController().signal,
  );
  const end = await started.ended.catch((error: unknown) => error);
  return { end, output };
}

test("an exit code is an exit (128 + n for a signal, as the SDK reports it), after both streams were read", async () => {
  const { end, output } = await endOf(sandboxWith(async () => 137));
  assert.deepEqual(end, { kind: "exited", exitCode: 137 });
  assert.deepEqual(output, [0xff], "raw bytes reach the engine");
});

test("the SDK's own exec deadline on the wait is Modal's timeout", async () => {
  const { end } = await endOf(
    sandboxWith(() => Promise.reject(new Error("Deadline exceeded while waiting for exec ex-1"))),
  );
  assert.deepEqual(end, { kind: "timed-out" });
});

test("a wait that fails otherwise ends nothing: the engine reads it as lost, never as a timeout", async () => {
  const failure = Object.assign(new Error("stream reset"), { name: "ClientError", code: 14 });
  const { end } = await endOf(sandboxWith(() => Promise.reject(failure)));
  assert.equal(end, failure);
});
