// Run by ambient-env.wire.test.ts in a child process whose environment, HOME
// and working directory point every Kubernetes client's defaults at a
// tripwire (KUBECONFIG, ~/.kube/config, KUBERNETES_SERVICE_HOST/PORT), and
// in which every file read is watched: a whole workload through
// KubernetesRuntime with only the emulator's server, token and router
// (argv) as options. Prints the files read that a Kubernetes client would
// read by default (none expected), then "ok".
import assert from "node:assert/strict";
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { KubernetesRuntime } from "../src/kubernetes-runtime.js";

const watched = /kube|serviceaccount|secrets/i;
const read: string[] = [];
for (const name of [
  "readFileSync",
  "openSync",
  "readFile",
  "open",
  "createReadStream",
  "existsSync",
  "statSync",
] as const) {
  const original = fs[name] as (...args: unknown[]) => unknown;
  (fs as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
    if (watched.test(String(args[0]))) read.push(`${name} ${String(args[0])}`);
    return original.apply(fs, args);
  };
}
for (const name of ["readFile", "open", "stat", "access"] as const) {
  const original = fs.promises[name] as (...args: unknown[]) => Promise<unknown>;
  (fs.promises as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
    if (watched.test(String(args[0]))) read.push(`promises.${name} ${String(args[0])}`);
    return original.apply(fs.promises, args);
  };
}
syncBuiltinESMExports();

const [server, token, routerUrl] = process.argv.slice(2) as [string, string, string];
const options = {
  cluster: { server, token },
  warmPool: "sandboxd-pool",
  routerUrl,
  dataPlane: "pod-exec" as const,
  owner: "ambient",
};
const runtime = new KubernetesRuntime(options);
const handle = await runtime.launch({ labels: { probe: "ambient" } });
await runtime.writeFiles(handle, [{ path: "in/a.txt", content: "a" }]);
assert.equal((await runtime.exec(handle, { argv: ["cat", "in/a.txt"] })).stdout, "a");
assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "in/a.txt")), "a");
assert.equal((await runtime.findByLabels({ probe: "ambient" })).length, 1);
await runtime.portEndpoint(handle, 8080);
const reopened = new KubernetesRuntime(options);
const found = await reopened.getById(handle.id);
assert.ok(found);
await reopened.destroy(found);
assert.deepEqual(await runtime.settle(), []);
process.stdout.write(`${JSON.stringify(read)}\nok`);
