// Run by ambient-env.wire.test.ts in a child process whose environment, HOME
// and working directory are full of Agent37 settings pointing at a tripwire:
// a whole workload through Agent37Runtime with only the emulator's URL and key
// (argv) as options. Prints "ok" when every step worked.
import assert from "node:assert/strict";
import { Agent37Runtime } from "../src/agent37-runtime.js";

const [baseUrl, apiKey] = process.argv.slice(2);
const options = { apiKey: apiKey as string, baseUrl: baseUrl as string, owner: "ambient-test" };
const runtime = new Agent37Runtime(options);
const handle = await runtime.launch({ labels: { probe: "ambient" }, env: { FROM_LAUNCH: "1" } });
await runtime.writeFiles(handle, [{ path: "in/a.txt", content: "a" }]);
assert.equal((await runtime.exec(handle, { argv: ["cat", "in/a.txt"] })).stdout, "a");
assert.equal((await runtime.exec(handle, { shell: 'echo "$FROM_LAUNCH"' })).stdout, "1\n");
assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "in/a.txt")), "a");
await runtime.mkdir(handle, "made");
assert.ok((await runtime.listDir(handle, ".")).some((entry) => entry.name === "made"));
assert.equal((await runtime.stat(handle, "in/a.txt")).size, 1);
await runtime.remove(handle, "made");
assert.equal((await runtime.findByLabels({ probe: "ambient" })).length, 1);
await runtime.stop(handle);
await runtime.start(handle);
const reopened = new Agent37Runtime(options);
const found = await reopened.getById(handle.id);
assert.ok(found);
await reopened.destroy(found);
assert.deepEqual(await runtime.settle(), []);
process.stdout.write("ok");
