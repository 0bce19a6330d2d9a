import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CommandTable, startSignal } from "./command-table.js";

/** A command that ends when told to, and records how it was killed. */
class FakeCommand {
  readonly done: Promise<void>;
  killedWith: string | undefined;
  #end!: () => void;

  constructor() {
    this.done = new Promise((resolve) => {
      this.#end = resolve;
    });
  }

  end(): void {
    this.#end();
  }

  kill(how: string): void {
    this.killedWith = how;
    this.end();
  }
}

describe("startSignal", () => {
  it("resolves once, and a reject after resolve changes nothing", async () => {
    const start = startSignal();
    start.resolve();
    start.reject(new Error("late"));
    await start.started;
  });

  it("rejects with the reason, and an unobserved rejection is not reported as unhandled", async () => {
    const start = startSignal();
    start.reject(new Error("no such program"));
    await assert.rejects(start.started, /no such program/);
    const unobserved = startSignal();
    unobserved.reject(new Error("nobody listens"));
    // The process would report an unhandled rejection by now if the promise had no handler.
    await new Promise((resolve) => setImmediate(resolve));
  });
});

describe("CommandTable", () => {
  it("hands out increasing pids from firstPid", () => {
    const table = new CommandTable<number, FakeCommand>({ firstPid: 1000 });
    assert.deepEqual([table.newPid(), table.newPid(), table.newPid()], [1000, 1001, 1002]);
  });

  it("drops an ended command unless ended ones are kept", async () => {
    const dropping = new CommandTable<string, FakeCommand>();
    const keeping = new CommandTable<string, FakeCommand>({ keepEnded: true });
    const command = new FakeCommand();
    dropping.add("a", command);
    keeping.add("a", command);
    assert.equal(dropping.get("a"), command);
    command.end();
    await command.done;
    await Promise.resolve();
    assert.equal(dropping.get("a"), undefined);
    assert.equal(dropping.size, 0);
    assert.equal(keeping.get("a"), command);
  });

  it("does not drop a newer command that reused the id of one that ended", async () => {
    const table = new CommandTable<string, FakeCommand>();
    const first = new FakeCommand();
    const second = new FakeCommand();
    table.add("a", first);
    table.add("a", second);
    first.end();
    await first.done;
    await Promise.resolve();
    assert.equal(table.get("a"), second);
  });

  it("admits a command once started, and forgets one that could not start", async () => {
    const table = new CommandTable<string, FakeCommand>({ keepEnded: true });
    const good = new FakeCommand();
    const goodStart = startSignal();
    const admitted = table.admit("good", good, goodStart.started);
    assert.equal(table.get("good"), good, "tracked while it starts, so a kill can reach it");
    goodStart.resolve();
    assert.equal(await admitted, good);

    const bad = new FakeCommand();
    const badStart = startSignal();
    const refused = table.admit("bad", bad, badStart.started);
    badStart.reject(new Error("spawn failed"));
    await assert.rejects(refused, /spawn failed/);
    assert.equal(table.get("bad"), undefined);
    assert.deepEqual(table.list(), [good]);
  });

  it("kills every command its own way and resolves only once all have ended", async () => {
    const table = new CommandTable<number, FakeCommand>({ keepEnded: true });
    const quick = new FakeCommand();
    const slow = new FakeCommand();
    slow.kill = (how) => {
      slow.killedWith = how;
    };
    table.add(1, quick);
    table.add(2, slow);
    let settled = false;
    const killing = table
      .killAll((command) => command.kill("SIGKILL"))
      .then(() => {
        settled = true;
      });
    await quick.done;
    await Promise.resolve();
    assert.equal(settled, false, "the slow command has not ended yet");
    assert.equal(quick.killedWith, "SIGKILL");
    assert.equal(slow.killedWith, "SIGKILL");
    slow.end();
    await killing;
    assert.equal(settled, true);
  });
});
