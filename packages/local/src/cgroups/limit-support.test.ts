// Which cgroup limits a runtime declares: decided at construction from its cgroups, without creating any.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LocalRuntime } from "../index.js";
import { runsAsRoot } from "../options.js";
import { ENTRY, runNodeChild, temporaryDirectory } from "../runtime.fixture.js";
import { probeCgroupHost } from "./cgroup-host.js";
import { judgeLimits, type LimitFacts, limitsSupport } from "./limit-support.js";

const V2 = "25 21 0:22 / /sys/fs/cgroup rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate";
const OWN = "/sys/fs/cgroup/user.slice/user-1000.slice/session-2.scope";

/** A delegated cgroup v2 subtree with every controller, already enabled for its children. */
function files(overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    [`${OWN}/cgroup.controllers`]: "cpuset cpu io memory pids",
    [`${OWN}/cgroup.subtree_control`]: "cpu memory pids",
    [`${OWN}/cgroup.type`]: "domain",
    ...overrides,
  };
}

function facts(overrides: Partial<LimitFacts> = {}, contents = files()): LimitFacts {
  return {
    platform: "linux",
    mountinfo: V2,
    membership: "0::/user.slice/user-1000.slice/session-2.scope\n",
    writable: () => true,
    read: (path) => contents[path],
    exists: (path) => contents[path] !== undefined,
    ...overrides,
  };
}

const verdicts = (support: ReturnType<typeof judgeLimits>) =>
  [support.memory, support.cpu, support.pids].map((verdict) => (verdict.ok ? "ok" : verdict.reason));

test("a writable delegated v2 subtree with the controllers enabled carries every limit", () => {
  assert.deepEqual(verdicts(judgeLimits(facts())), ["ok", "ok", "ok"]);
});

test("a controller not enabled for the children, in a cgroup that holds this process, cannot be", () => {
  const support = judgeLimits(facts({}, files({ [`${OWN}/cgroup.subtree_control`]: "memory" })));
  const [memory, cpu, pids] = verdicts(support);
  assert.equal(memory, "ok");
  assert.match(cpu ?? "", /cpu controller/);
  assert.match(pids ?? "", /pids controller/);
});

test("in the hierarchy's true root (no cgroup.type) a controller can be enabled, so it counts", () => {
  const root = {
    "/sys/fs/cgroup/cgroup.controllers": "cpu memory pids",
    "/sys/fs/cgroup/cgroup.subtree_control": "",
  };
  assert.deepEqual(verdicts(judgeLimits(facts({ membership: "0::/\n" }, root))), ["ok", "ok", "ok"]);
  // A cgroup namespace's root looks like "/" too, but is a cgroup with a type: not enabled there, not usable.
  const namespaced = { ...root, "/sys/fs/cgroup/cgroup.type": "domain" };
  assert.equal(judgeLimits(facts({ membership: "0::/\n" }, namespaced)).memory.ok, false);
});

test("a controller missing from cgroup.controllers, or an unwritable cgroup, is refused with the reason", () => {
  assert.equal(judgeLimits(facts({}, files({ [`${OWN}/cgroup.controllers`]: "cpu pids" }))).memory.ok, false);
  const unwritable = verdicts(judgeLimits(facts({ writable: () => false })));
  for (const reason of unwritable) assert.match(reason, /no writable cgroup hierarchy .* delegated cgroup v2 subtree/);
});

test("legacy v1 hierarchies carry each controller whose own directory is writable", () => {
  const mountinfo = [
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu",
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory",
    "39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids",
  ].join("\n");
  const membership = "8:pids:/\n4:memory:/api/abc\n1:cpu:/\n0::/\n";
  const seen: string[] = [];
  const support = judgeLimits(
    facts({ mountinfo, membership, writable: (directory) => seen.push(directory) > 0 && !directory.includes("pids") }),
  );
  assert.deepEqual(verdicts(support).slice(0, 2), ["ok", "ok"]);
  assert.equal(support.pids.ok, false);
  assert.ok(seen.includes("/sys/fs/cgroup/memory/api/abc"), "its own memory cgroup is checked");
});

test("off Linux, or as root without setpriv, every limit is refused naming why", () => {
  for (const reason of verdicts(judgeLimits(facts({ platform: "darwin" })))) assert.match(reason, /darwin/);
  for (const reason of verdicts(judgeLimits(facts({ missingSetpriv: "/usr/bin/setpriv" })))) {
    assert.match(reason, /\/usr\/bin\/setpriv \(util-linux\), which is missing/);
  }
});

test("on this host the declaration agrees with what the launch can place", async () => {
  const host = await probeCgroupHost();
  const controllers = new Set([...Object.keys(host.legacy), ...(host.unified?.controllers ?? [])]);
  const support = limitsSupport(undefined);
  // A judged-usable controller is one the probe found writable (the judgement is never more generous).
  for (const [name, controller] of [
    ["memory", "memory"],
    ["cpu", "cpu"],
    ["pids", "pids"],
  ] as const) {
    if (support[name].ok) assert.ok(controllers.has(controller), `${controller} is judged usable and probed writable`);
  }
  const root = temporaryDirectory("limit-support");
  try {
    const rt = new LocalRuntime({ root: root.path, isolation: "none" });
    assert.deepEqual(
      [rt.capabilities.memoryLimit, rt.capabilities.cpuLimit, rt.capabilities.processLimit],
      [support.memory, support.cpu, support.pids].map((verdict) => (verdict.ok ? true : "unsupported")),
    );
    if (support.memory.ok && support.pids.ok) {
      const handle = await rt.launch({ resources: { memoryMiB: 64, maxProcesses: 20 } });
      await rt.destroy(handle);
    }
  } finally {
    await root.remove();
  }
});

test("a process that may write no cgroup (uid 65534 here) declares every limit unsupported and refuses each naming why", {
  skip: runsAsRoot() ? false : "needs root, to start a process as another user",
}, async () => {
  const script = `
    import { LocalRuntime } from ${JSON.stringify(ENTRY)};
    const rt = new LocalRuntime({ root: "/nonexistent/sandport-unprivileged", isolation: "none" });
    const refusal = (resources) => rt.launch({ resources }).then(() => "launched", (error) => error.code + ": " + error.message);
    console.log(JSON.stringify({
      declared: [rt.capabilities.memoryLimit, rt.capabilities.cpuLimit, rt.capabilities.processLimit, rt.capabilities.diskLimit],
      memory: await refusal({ memoryMiB: 64 }),
      disk: await refusal({ diskMiB: 64 }),
    }));
  `;
  const { code, stdout, stderr } = await runNodeChild(script, {}, {}, { uid: 65534, gid: 65534 });
  assert.equal(code, 0, stderr);
  const seen = JSON.parse(stdout) as { declared: unknown[]; memory: string; disk: string };
  assert.deepEqual(seen.declared, ["unsupported", "unsupported", "unsupported", "unsupported"]);
  assert.match(seen.memory, /^UNSUPPORTED: .*memoryMiB: no writable cgroup hierarchy with the memory controller/);
  assert.match(
    seen.disk,
    /^UNSUPPORTED: .*diskMiB: mounting a workspace image needs root; this process runs as uid 65534/,
  );
});
