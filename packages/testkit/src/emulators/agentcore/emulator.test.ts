// The AgentCore emulator through the real @aws-sdk/client-bedrock-agentcore:
// sessions, the event-stream Invoke running real commands and files on the
// backend, the SigV4 refusal and injected faults in AgentCore's error shape.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import {
  BedrockAgentCoreClient,
  GetCodeInterpreterSessionCommand,
  InvokeCodeInterpreterCommand,
  type InvokeCodeInterpreterCommandOutput,
  ListCodeInterpreterSessionsCommand,
  StartCodeInterpreterSessionCommand,
  StopCodeInterpreterSessionCommand,
} from "@aws-sdk/client-bedrock-agentcore";
import { waitFor } from "../../assertions/index.js";
import { SYSTEM_INTERPRETER, startAgentCoreEmulator } from "./index.js";

const emulator = await startAgentCoreEmulator();
after(() => emulator.stop());

const client = new BedrockAgentCoreClient({
  region: emulator.region,
  endpoint: emulator.endpoint,
  credentials: { accessKeyId: "AKIDEMULATOR", secretAccessKey: "secret" },
  maxAttempts: 1,
});
after(() => client.destroy());
const ci = SYSTEM_INTERPRETER;

async function lastResult(output: InvokeCodeInterpreterCommandOutput) {
  let result: unknown;
  for await (const event of output.stream ?? []) if (event.result) result = event.result;
  return result as {
    content: { resource?: { blob?: Uint8Array } }[];
    structuredContent?: Record<string, unknown>;
    isError?: boolean;
  };
}

test("a session runs real commands and keeps binary files; stop terminates it", async () => {
  const started = await client.send(
    new StartCodeInterpreterSessionCommand({ codeInterpreterIdentifier: ci, name: "probe", sessionTimeoutSeconds: 60 }),
  );
  const sessionId = started.sessionId ?? "";
  assert.ok(started.createdAt instanceof Date);
  const invoke = (name: string, args: Record<string, unknown>) =>
    client.send(
      new InvokeCodeInterpreterCommand({
        codeInterpreterIdentifier: ci,
        sessionId,
        name: name as never,
        arguments: args,
      }),
    );
  const ran = await lastResult(await invoke("executeCommand", { command: "echo hi; echo no >&2; exit 3" }));
  assert.deepEqual(
    {
      stdout: ran.structuredContent?.stdout,
      stderr: ran.structuredContent?.stderr,
      exitCode: ran.structuredContent?.exitCode,
    },
    { stdout: "hi\n", stderr: "no\n", exitCode: 3 },
  );
  const bytes = new Uint8Array([0, 255, 1, 128]);
  await lastResult(await invoke("writeFiles", { content: [{ path: "dir/b.bin", blob: bytes }] }));
  const read = await lastResult(await invoke("readFiles", { paths: ["dir/b.bin"] }));
  assert.deepEqual([...(read.content[0]?.resource?.blob ?? [])], [...bytes]);
  const listed = await client.send(
    new ListCodeInterpreterSessionsCommand({ codeInterpreterIdentifier: ci, status: "READY" }),
  );
  assert.ok(listed.items?.some((item) => item.sessionId === sessionId && item.name === "probe"));
  await client.send(new StopCodeInterpreterSessionCommand({ codeInterpreterIdentifier: ci, sessionId }));
  const got = await client.send(new GetCodeInterpreterSessionCommand({ codeInterpreterIdentifier: ci, sessionId }));
  assert.equal(got.status, "TERMINATED");
  await assert.rejects(invoke("executeCommand", { command: "true" }), { name: "ResourceNotFoundException" });
  assert.equal(emulator.liveSandboxes().length, 0);
});

test("the same clientToken starts one session", async () => {
  const clientToken = "a".repeat(40);
  const input = { codeInterpreterIdentifier: ci, name: "once", sessionTimeoutSeconds: 60, clientToken };
  const first = await client.send(new StartCodeInterpreterSessionCommand(input));
  const second = await client.send(new StartCodeInterpreterSessionCommand(input));
  assert.equal(second.sessionId, first.sessionId);
  await assert.rejects(client.send(new StartCodeInterpreterSessionCommand({ ...input, name: "other" })), {
    name: "ValidationException",
  });
  await client.send(
    new StopCodeInterpreterSessionCommand({ codeInterpreterIdentifier: ci, sessionId: first.sessionId }),
  );
});

test("an unsigned request is refused, and an injected fault answers in AgentCore's shape", async () => {
  const response = await fetch(`${emulator.endpoint}/code-interpreters/${ci}/sessions/list`, {
    method: "POST",
    body: "{}",
  });
  assert.equal(response.status, 403);
  assert.match(response.headers.get("x-amzn-errortype") ?? "", /^AccessDeniedException/);
  emulator.injectFault({ route: "ListCodeInterpreterSessions", fault: { kind: "status", status: 429 } });
  await assert.rejects(client.send(new ListCodeInterpreterSessionsCommand({ codeInterpreterIdentifier: ci })), {
    name: "ThrottlingException",
  });
  await assert.rejects(client.send(new ListCodeInterpreterSessionsCommand({ codeInterpreterIdentifier: "nope" })), {
    name: "ResourceNotFoundException",
  });
});

test("a session terminates at its sessionTimeoutSeconds, and its sandbox goes with it", async () => {
  const started = await client.send(
    new StartCodeInterpreterSessionCommand({ codeInterpreterIdentifier: ci, sessionTimeoutSeconds: 1 }),
  );
  const sessionId = started.sessionId ?? "";
  assert.ok(emulator.liveSandboxes().some((sandbox) => sandbox.id === sessionId));
  await waitFor(
    async () =>
      (await client.send(new GetCodeInterpreterSessionCommand({ codeInterpreterIdentifier: ci, sessionId }))).status ===
      "TERMINATED",
    { timeoutMs: 5_000 },
  );
  assert.ok(!emulator.liveSandboxes().some((sandbox) => sandbox.id === sessionId));
});
