import assert from "node:assert/strict";
import { test } from "node:test";
import { resolveOptions } from "./options.js";

const CA = Buffer.from("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n").toString("base64");
const base = { warmPool: "pool", routerUrl: "http://router:8080" };

test("the cluster comes from the options only: neither cluster nor kubeconfig is refused", () => {
  assert.throws(
    () => resolveOptions({ ...base }),
    (error: Error) => /cluster/.test(error.message) && /KUBECONFIG/.test(error.message),
  );
});

test("an explicit cluster is read, its CA decoded", () => {
  const resolved = resolveOptions({ ...base, cluster: { server: "https://k8s:6443", token: "t", caData: CA } });
  assert.equal(resolved.cluster.server, "https://k8s:6443");
  assert.match(resolved.cluster.caPem ?? "", /BEGIN CERTIFICATE/);
  assert.equal(resolved.namespace, "default");
  assert.equal(resolved.dataPlane, "sandboxd");
  assert.equal(resolved.launchEnv, "refuse");
});

test("a kubeconfig object or its JSON gives server, token, CA and the context's namespace", () => {
  const kubeconfig = {
    "current-context": "dev",
    contexts: [{ name: "dev", context: { cluster: "c", user: "u", namespace: "agents" } }],
    clusters: [{ name: "c", cluster: { server: "https://k8s:6443", "certificate-authority-data": CA } }],
    users: [{ name: "u", user: { token: "secret" } }],
  };
  for (const given of [kubeconfig, JSON.stringify(kubeconfig)]) {
    const resolved = resolveOptions({ ...base, kubeconfig: given });
    assert.equal(resolved.cluster.token, "secret");
    assert.equal(resolved.namespace, "agents");
  }
  assert.equal(resolveOptions({ ...base, kubeconfig, namespace: "other" }).namespace, "other");
});

test("kubeconfig logins that would run or read something are refused, as is YAML text", () => {
  const withUser = (user: object) => ({
    "current-context": "dev",
    contexts: [{ name: "dev", context: { cluster: "c", user: "u" } }],
    clusters: [{ name: "c", cluster: { server: "https://k8s:6443" } }],
    users: [{ name: "u", user }],
  });
  assert.throws(() => resolveOptions({ ...base, kubeconfig: withUser({ exec: { command: "aws" } }) }), /exec/);
  assert.throws(() => resolveOptions({ ...base, kubeconfig: withUser({ tokenFile: "/var/run/token" }) }), /tokenFile/);
  assert.throws(() => resolveOptions({ ...base, kubeconfig: "apiVersion: v1\nkind: Config\n" }), /yaml\.parse/);
});

test("misspelt and invalid options are refused, naming the field", () => {
  const cluster = { server: "https://k8s", token: "t" };
  assert.throws(() => resolveOptions({ ...base, cluster, warmpool: "x" } as never), /did you mean warmPool/);
  assert.throws(() => resolveOptions({ ...base, cluster, dataPlane: "ssh" as never }), /dataPlane/);
  assert.throws(() => resolveOptions({ warmPool: "pool", cluster }), /routerUrl is required/);
  assert.equal(resolveOptions({ warmPool: "pool", cluster, dataPlane: "pod-exec" }).routerUrl, undefined);
  assert.throws(() => resolveOptions({ ...base, cluster, launchEnv: "always" as never }), /launchEnv/);
  assert.throws(() => resolveOptions({ ...base, cluster: { ...cluster, caData: "bm90IGEgY2VydA==" } }), /PEM/);
});

test("commandStateDirectory defaults to /tmp/sandport/commands and must be absolute", () => {
  const cluster = { server: "https://k8s:6443", token: "t" };
  assert.equal(resolveOptions({ ...base, cluster }).commandStateDirectory, "/tmp/sandport/commands");
  assert.equal(
    resolveOptions({ ...base, cluster, commandStateDirectory: "/var/run/x" }).commandStateDirectory,
    "/var/run/x",
  );
  assert.throws(() => resolveOptions({ ...base, cluster, commandStateDirectory: "state" }), /commandStateDirectory/);
});
