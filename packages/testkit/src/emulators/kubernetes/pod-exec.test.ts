// The pod exec subresource over WebSocket (v5.channel.k8s.io, then v4), spoken with the `ws`
// client: channel bytes 0-4 (and v5's 255 close), the final Status on channel 3, a terminal
// resized on channel 4; the command runs for real in the pod's backend sandbox.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import WebSocket from "ws";
import { api, claimReady, PODS_PATH, routing } from "./client.fixture.js";
import { type KubernetesEmulator, startKubernetesEmulator } from "./emulator.js";
import { kubernetesEmulatorSkipReason } from "./pod-workspace.js";

/** The emulator needs pods with their own `/workspace` (see `kubernetesEmulatorSkipReason`). */
const skip = await kubernetesEmulatorSkipReason();

interface ExecOutcome {
  protocol: string;
  stdout: string;
  stderr: string;
  status: {
    status: string;
    reason?: string;
    message?: string;
    details?: { causes: { reason: string; message: string }[] };
  };
}

/** Run one exec over WebSocket; `drive` may send frames once the socket is open. */
function exec(
  emulator: KubernetesEmulator,
  pod: string,
  command: string[],
  options: { protocols?: string[]; query?: string; drive?: (socket: WebSocket, protocol: string) => void } = {},
): Promise<ExecOutcome> {
  const query = new URLSearchParams();
  for (const part of command) query.append("command", part);
  const url = `${emulator.apiServerUrl.replace("http", "ws")}${PODS_PATH}/${pod}/exec?${query}&${options.query ?? "stdout=true&stderr=true"}`;
  const socket = new WebSocket(url, options.protocols ?? ["v5.channel.k8s.io", "v4.channel.k8s.io"], {
    headers: { authorization: `Bearer ${emulator.token}` },
  });
  return new Promise((resolve, reject) => {
    const outcome: ExecOutcome = { protocol: "", stdout: "", stderr: "", status: { status: "" } };
    socket.on("open", () => {
      outcome.protocol = socket.protocol;
      options.drive?.(socket, socket.protocol);
    });
    socket.on("message", (data: Buffer) => {
      const channel = data[0];
      const text = data.subarray(1).toString();
      if (channel === 1) outcome.stdout += text;
      else if (channel === 2) outcome.stderr += text;
      else if (channel === 3) outcome.status = JSON.parse(text);
    });
    socket.on("close", () => resolve(outcome));
    socket.on("unexpected-response", (_request, response) =>
      reject(new Error(`upgrade refused: ${response.statusCode}`)),
    );
    socket.on("error", reject);
  });
}

describe("Kubernetes emulator: pod exec over WebSocket", { skip }, () => {
  let emulator: KubernetesEmulator;
  let pod: string;
  before(async () => {
    emulator = await startKubernetesEmulator();
    pod = (await claimReady(emulator, { metadata: { name: "execed" }, spec: { warmPoolRef: { name: "plain-pool" } } }))
      .status.sandbox.name;
  });
  after(() => emulator.stop());

  test("v5 is chosen first; stdout and stderr on channels 1 and 2; exit 0 is Success, another code NonZeroExitCode", async () => {
    const ok = await exec(emulator, pod, ["sh", "-c", "echo out; echo err >&2"]);
    assert.equal(ok.protocol, "v5.channel.k8s.io");
    assert.equal(ok.stdout, "out\n");
    assert.equal(ok.stderr, "err\n");
    assert.deepEqual(ok.status, { metadata: {}, status: "Success" });
    const failed = await exec(emulator, pod, ["sh", "-c", "exit 3"]);
    assert.equal(failed.status.status, "Failure");
    assert.equal(failed.status.reason, "NonZeroExitCode");
    assert.deepEqual(failed.status.details?.causes, [{ reason: "ExitCode", message: "3" }]);
    const missing = await exec(emulator, pod, ["no-such-program-here"]);
    assert.equal(missing.status.status, "Failure");
    assert.match(missing.status.message ?? "", /executable file not found/);
  });

  test("stdin on channel 0, ended by v5's close frame [255, 0]", async () => {
    const outcome = await exec(emulator, pod, ["sh", "-c", "tr a-z A-Z"], {
      query: "stdin=true&stdout=true&stderr=true",
      drive: (socket) => {
        socket.send(Buffer.concat([Buffer.from([0]), Buffer.from("shout\n")]));
        socket.send(Buffer.from([255, 0]));
      },
    });
    assert.equal(outcome.stdout, "SHOUT\n");
    assert.equal(outcome.status.status, "Success");
  });

  test("v4 when it is the only one offered; an unserved subprotocol is refused before the upgrade", async () => {
    const outcome = await exec(emulator, pod, ["echo", "four"], { protocols: ["v4.channel.k8s.io"] });
    assert.equal(outcome.protocol, "v4.channel.k8s.io");
    assert.equal(outcome.stdout, "four\n");
    await assert.rejects(exec(emulator, pod, ["true"], { protocols: ["channel.k8s.io"] }), /upgrade refused: 400/);
    await assert.rejects(exec(emulator, "ghost", ["true"]), /upgrade refused: 404/);
  });

  test("with tty, a resize on channel 4 reaches the terminal", async () => {
    const outcome = await exec(emulator, pod, ["sh", "-c", "read go; stty size"], {
      query: "stdin=true&stdout=true&tty=true",
      drive: (socket) => {
        socket.send(Buffer.concat([Buffer.from([4]), Buffer.from(JSON.stringify({ Width: 100, Height: 30 }))]));
        socket.send(Buffer.concat([Buffer.from([0]), Buffer.from("\n")]));
      },
    });
    assert.match(outcome.stdout, /30 100/);
  });

  test("exec without a token is 401", async () => {
    const response = await api(emulator, `${PODS_PATH}/${pod}/exec?command=true`, { token: null });
    assert.equal(response.status, 401);
  });

  test("a pod sees its own /workspace: a file written through the router of one pod is absent from another", async () => {
    const a = (
      await claimReady(emulator, { metadata: { name: "ws-a" }, spec: { warmPoolRef: { name: "sandboxd-pool" } } })
    ).status.sandbox.name;
    const b = (
      await claimReady(emulator, { metadata: { name: "ws-b" }, spec: { warmPoolRef: { name: "sandboxd-pool" } } })
    ).status.sandbox.name;
    const put = await fetch(`${emulator.routerUrl}/v1/files/mine.txt`, {
      method: "PUT",
      headers: routing(a, 8080),
      body: "a's",
    });
    assert.equal(put.status, 204);
    const inA = await exec(emulator, a, ["cat", "/workspace/mine.txt"]);
    assert.equal(inA.stdout, "a's");
    const inB = await exec(emulator, b, ["sh", "-c", "test -e /workspace/mine.txt && echo present || echo absent"]);
    assert.equal(inB.stdout, "absent\n");
    assert.equal(existsSync("/workspace/mine.txt"), false, "the host's own /workspace is not a pod's");
  });
});
