import assert from "node:assert/strict";
import { test } from "node:test";
import { EgressRules, isPublicAddress } from "./egress-rules.js";

const publicOnly = async () => ["93.184.216.34"];

test("a wildcard matches names below it, not the name itself; a port entry only that port", async () => {
  const rules = new EgressRules({ allow: ["*.example.com", "api.test:443"] });
  const allowed = async (host: string, port: number) => (await rules.decide(host, port, publicOnly)).allowed;
  assert.equal(await allowed("a.example.com", 80), true);
  assert.equal(await allowed("A.B.Example.COM.", 443), true);
  assert.equal(await allowed("example.com", 443), false);
  assert.equal(await allowed("badexample.com", 443), false);
  assert.equal(await allowed("api.test", 443), true);
  assert.equal(await allowed("api.test", 80), false);
  assert.equal(await allowed("93.184.216.34", 443), false, "an address needs a CIDR entry");
});

test("special addresses are not public; an allowed name at one is refused, dialled at a public one", async () => {
  for (const address of [
    "127.0.0.1",
    "10.1.2.3",
    "172.20.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "::1",
    "fe80::1",
    "fd00:ec2::254",
    "::ffff:10.0.0.1",
    "0.0.0.0",
  ]) {
    assert.equal(isPublicAddress(address), false, address);
  }
  assert.equal(isPublicAddress("93.184.216.34"), true);
  assert.equal(isPublicAddress("2606:2800:220:1:248:1893:25c8:1946"), true);
  const rules = new EgressRules({ allow: ["mixed.test"] });
  assert.deepEqual(await rules.decide("mixed.test", 80, async () => ["10.0.0.5", "93.184.216.34"]), {
    allowed: true,
    address: "93.184.216.34",
  });
  assert.equal((await rules.decide("mixed.test", 80, async () => ["10.0.0.5"])).allowed, false);
  const ranged = new EgressRules({ allow: ["mixed.test", "10.0.0.0/8"] });
  assert.deepEqual(await ranged.decide("mixed.test", 80, async () => ["10.0.0.5"]), {
    allowed: true,
    address: "10.0.0.5",
  });
  assert.deepEqual(await ranged.decide("10.9.9.9", 22, publicOnly), { allowed: true, address: "10.9.9.9" });
});
