// The registry destroy stops commands through: what a destroy begun in the same turn as a command does to it,
// and when commands are let in again.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "@sandport/core";
import { RunningCommands } from "./running-commands.js";

const notFound = (error: unknown) => SandportError.hasCode(error, "NOT_FOUND");

describe("RunningCommands", () => {
  test("a destroy begun in the same turn as a command aborts it before its first await resumes", async () => {
    const running = new RunningCommands();
    let spawned = false;
    const command = running.track("sbx", new AbortController().signal, async (signal) => {
      await Promise.resolve(); // the command's planning
      signal.throwIfAborted();
      spawned = true;
    });
    running.beginDestroy("sbx");
    await assert.rejects(command, notFound);
    assert.equal(spawned, false);
    running.destroyEnded("sbx");
  });

  test("commands are refused until the last of overlapping destroys ends", async () => {
    const running = new RunningCommands();
    const task = async () => "ran";
    running.beginDestroy("sbx");
    running.beginDestroy("sbx");
    running.destroyEnded("sbx");
    await assert.rejects(running.track("sbx", new AbortController().signal, task), notFound);
    // Another sandbox's commands are not refused meanwhile.
    assert.equal(await running.track("other", new AbortController().signal, task), "ran");
    running.destroyEnded("sbx");
    assert.equal(await running.track("sbx", new AbortController().signal, task), "ran");
  });

  test("stopAll waits for the aborted commands to finish", async () => {
    const running = new RunningCommands();
    const order: string[] = [];
    const command = running.track("sbx", new AbortController().signal, async (signal) => {
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      await Promise.resolve(); // its processes being killed
      order.push("command ended");
    });
    running.beginDestroy("sbx");
    await running.stopAll("sbx", 10_000);
    order.push("stopAll resolved");
    await command;
    running.destroyEnded("sbx");
    assert.deepEqual(order, ["command ended", "stopAll resolved"]);
  });
});
