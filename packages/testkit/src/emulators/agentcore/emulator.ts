/**
 * A local AWS Bedrock AgentCore Code Interpreter data plane for the real
 * `@aws-sdk/client-bedrock-agentcore`: the session routes and
 * `InvokeCodeInterpreter` as an event stream, every session a sandbox on a
 * backend runtime. What it enforces, with sources, and what it guesses: README.md here.
 *
 * @module
 */

import { type EmulatorBackend, type ResolvedBackend, resolveBackend } from "../harness/backend.js";
import { EmulatorFacade } from "../harness/emulator-facade.js";
import type { Exchange } from "../harness/exchange.js";
import { EmulatorServer } from "../harness/http-server.js";
import { SandboxRegistry } from "../harness/sandbox-registry.js";
import type { ProviderEmulator } from "../harness/types.js";
import { AgentCoreError, agentCoreErrorReply, notFound, replyError, requestId, validation } from "./errors.js";
import { type FrameEncoder, loadFrameEncoder } from "./event-stream.js";
import { parseStart, type Session, SessionStore } from "./sessions.js";
import { MAX_PAYLOAD_BYTES, runTool } from "./tools.js";

/** The AWS-managed interpreter every account has. */
export const SYSTEM_INTERPRETER = "aws.codeinterpreter.v1";

/** Options of {@link startAgentCoreEmulator}. */
export interface AgentCoreEmulatorOptions {
  /** Where sessions run. Default: a `LocalRuntime` in a temporary directory. */
  readonly backend?: EmulatorBackend;
  /** The session's working directory, which the default backend's workspace is. Default `/opt/amazon/genesis1p-tools/var`. */
  readonly workingDirectory?: string;
  /** The region requests must be signed for. Default `us-east-1`. */
  readonly region?: string;
  /** Interpreter ids that exist. Default: the system interpreter only. */
  readonly codeInterpreterIds?: readonly string[];
}

/** A running AgentCore emulator. */
export interface AgentCoreEmulator extends ProviderEmulator {
  /** The SDK's `endpoint`. */
  readonly endpoint: string;
  /** The region requests are signed for. */
  readonly region: string;
  /** The session working directory the backend workspace stands for. */
  readonly workingDirectory: string;
  /** The `name` of each tool call `InvokeCodeInterpreter` received, in order. */
  readonly toolCalls: readonly string[];
}

/** The working directory AgentCore sessions are believed to start in (a guess: see README.md). */
const WORKING_DIRECTORY = "/opt/amazon/genesis1p-tools/var";
const SIGNATURE =
  /^AWS4-HMAC-SHA256 Credential=[^/]+\/\d{8}\/([a-z0-9-]+)\/bedrock-agentcore\/aws4_request, SignedHeaders=[^,]+, Signature=[0-9a-f]{64}$/;

/** Start an AgentCore emulator on 127.0.0.1 and an ephemeral port. */
export async function startAgentCoreEmulator(options: AgentCoreEmulatorOptions = {}): Promise<AgentCoreEmulator> {
  const frames = await loadFrameEncoder();
  const workingDirectory = options.workingDirectory ?? WORKING_DIRECTORY;
  const backend = await resolveBackend(options.backend, { workspaceRoot: workingDirectory, sharedProcesses: true });
  let server: EmulatorServer;
  try {
    server = await EmulatorServer.start({
      errorReply: agentCoreErrorReply,
      answerUnknownRoute: (exchange) =>
        replyError(
          exchange,
          new AgentCoreError(
            "ValidationException",
            `not emulated: ${exchange.method} ${exchange.url.pathname}`,
            "UnknownOperationException",
          ),
        ),
    });
  } catch (error) {
    await backend.dispose();
    throw error;
  }
  const emulator = new AgentCoreEmulatorImpl(server, backend, frames, {
    workingDirectory,
    region: options.region ?? "us-east-1",
    interpreters: new Set(options.codeInterpreterIds ?? [SYSTEM_INTERPRETER]),
  });
  emulator.registerRoutes();
  return emulator;
}

interface Settings {
  readonly workingDirectory: string;
  readonly region: string;
  readonly interpreters: ReadonlySet<string>;
}

class AgentCoreEmulatorImpl extends EmulatorFacade<EmulatorServer, Session> implements AgentCoreEmulator {
  readonly workingDirectory: string;
  readonly region: string;
  readonly toolCalls: string[] = [];
  readonly #settings: Settings;
  readonly #frames: FrameEncoder;
  readonly #sessions: SessionStore;
  readonly #stopController = new AbortController();

  constructor(server: EmulatorServer, backend: ResolvedBackend, frames: FrameEncoder, settings: Settings) {
    const registry = new SandboxRegistry<Session>();
    super(server, backend, registry);
    this.#settings = settings;
    this.#frames = frames;
    this.workingDirectory = settings.workingDirectory;
    this.region = settings.region;
    this.#sessions = new SessionStore(registry, () => backend.runtime);
  }

  get url(): string {
    return this.server.url;
  }

  get endpoint(): string {
    return this.server.url;
  }

  override resetRequests(): void {
    super.resetRequests();
    this.toolCalls.length = 0;
  }

  /** A session someone else started (its `name` from `metadata.name`, else one no runtime gives). */
  async seedForeignSandbox(metadata: Record<string, string> = {}): Promise<string> {
    const name = metadata.name ?? "someone-elses-session";
    const session = await this.#sessions.start(
      { codeInterpreterIdentifier: SYSTEM_INTERPRETER, name, sessionTimeoutSeconds: 900, clientToken: undefined },
      true,
    );
    return session.sessionId;
  }

  /** The five data-plane routes, each named by its operation (the names fault rules match). */
  registerRoutes(): void {
    const base = "/code-interpreters/:ci";
    this.#route("PUT", `${base}/sessions/start`, "StartCodeInterpreterSession", async (exchange, ci) => {
      const session = await this.#sessions.start(parseStart(ci, jsonBody(exchange)));
      exchange.json(
        200,
        {
          codeInterpreterIdentifier: ci,
          sessionId: session.sessionId,
          createdAt: session.createdAt.toISOString(),
        },
        { "x-amzn-requestid": requestId() },
      );
    });
    this.#route("GET", `${base}/sessions/get`, "GetCodeInterpreterSession", (exchange, ci) => {
      const session = this.#sessions.get(ci, sessionIdOf(exchange.url.searchParams.get("sessionId")));
      exchange.json(200, {
        codeInterpreterIdentifier: ci,
        sessionId: session.sessionId,
        ...(session.name === undefined ? {} : { name: session.name }),
        createdAt: session.createdAt.toISOString(),
        sessionTimeoutSeconds: session.sessionTimeoutSeconds,
        status: session.status,
      });
    });
    this.#route("POST", `${base}/sessions/list`, "ListCodeInterpreterSessions", (exchange, ci) => {
      const body = jsonBody(exchange);
      const maxResults = body.maxResults ?? 10;
      if (!Number.isInteger(maxResults) || (maxResults as number) < 1 || (maxResults as number) > 100) {
        throw validation("maxResults must be an integer from 1 to 100");
      }
      if (body.status !== undefined && body.status !== "READY" && body.status !== "TERMINATED") {
        throw validation("status must be READY or TERMINATED");
      }
      const offset = body.nextToken === undefined ? 0 : offsetOf(body.nextToken);
      const page = this.#sessions.list(ci, body.status as string | undefined, maxResults as number, offset);
      exchange.json(200, {
        items: page.items.map((session) => ({
          codeInterpreterIdentifier: ci,
          sessionId: session.sessionId,
          ...(session.name === undefined ? {} : { name: session.name }),
          status: session.status,
          createdAt: session.createdAt.toISOString(),
          lastUpdatedAt: session.lastUpdatedAt.toISOString(),
        })),
        ...(page.next === undefined ? {} : { nextToken: Buffer.from(`offset:${page.next}`).toString("base64") }),
      });
    });
    this.#route("PUT", `${base}/sessions/stop`, "StopCodeInterpreterSession", async (exchange, ci) => {
      const session = this.#sessions.get(ci, sessionIdOf(exchange.url.searchParams.get("sessionId")));
      await this.#sessions.terminate(session);
      exchange.json(200, {
        codeInterpreterIdentifier: ci,
        sessionId: session.sessionId,
        lastUpdatedAt: session.lastUpdatedAt.toISOString(),
      });
    });
    this.#route("POST", `${base}/tools/invoke`, "InvokeCodeInterpreter", async (exchange, ci) => {
      if (exchange.body.length > MAX_PAYLOAD_BYTES) throw validation("the request payload exceeds 100 MB");
      const sessionId = sessionIdOf(exchange.header("x-amzn-code-interpreter-session-id"));
      const session = this.#sessions.ready(ci, sessionId);
      const { name, arguments: args } = jsonBody(exchange);
      this.toolCalls.push(String(name));
      const result = await runTool(
        this.backend,
        session,
        name,
        (args ?? {}) as Record<string, unknown>,
        this.#stopController.signal,
      );
      const stream = exchange.stream(200, {
        "content-type": "application/vnd.amazon.eventstream",
        "x-amzn-code-interpreter-session-id": sessionId,
        "x-amzn-requestid": requestId(),
      });
      stream.write(this.#frames.result(result));
      stream.end();
    });
  }

  #route(
    method: string,
    pattern: string,
    name: string,
    handler: (exchange: Exchange, codeInterpreterIdentifier: string) => Promise<void> | void,
  ): void {
    this.server.route({
      method,
      pattern,
      name,
      handler: async (exchange) => {
        try {
          this.#authorize(exchange);
          const ci = exchange.params.ci ?? "";
          if (!this.#settings.interpreters.has(ci)) throw notFound(`code interpreter ${ci} not found`);
          await handler(exchange, ci);
        } catch (error) {
          if (!(error instanceof AgentCoreError)) throw error;
          replyError(exchange, error);
        }
      },
    });
  }

  /** Refuses a request without a SigV4 `Authorization` for `bedrock-agentcore` in the emulator's region (the signature is not verified). */
  #authorize(exchange: Exchange): void {
    const match = SIGNATURE.exec(exchange.header("authorization") ?? "");
    if (!match || exchange.header("x-amz-date") === undefined) {
      throw new AgentCoreError("AccessDeniedException", "Missing Authentication Token: a SigV4 signature is required");
    }
    if (match[1] !== this.region) {
      throw new AgentCoreError(
        "AccessDeniedException",
        `the credential scope's region ${match[1]} is not ${this.region}`,
      );
    }
  }

  protected override async beforeServerStops(): Promise<void> {
    this.#stopController.abort(new Error("emulator stopped"));
  }

  protected async shutDown(): Promise<void> {
    await this.#sessions.close();
  }
}

function jsonBody(exchange: Exchange): Record<string, unknown> {
  if (exchange.body.length === 0) return {};
  try {
    const value: unknown = JSON.parse(exchange.body.toString("utf8"));
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {}
  throw validation("the body is not a JSON object", "CannotParse");
}

function sessionIdOf(value: string | null | undefined): string {
  if (typeof value !== "string" || !/^[0-9a-zA-Z]{1,40}$/.test(value)) {
    throw validation("sessionId must be 1-40 characters of [0-9a-zA-Z]");
  }
  return value;
}

function offsetOf(token: unknown): number {
  const match = typeof token === "string" ? /^offset:(\d+)$/.exec(Buffer.from(token, "base64").toString("utf8")) : null;
  if (!match) throw validation("nextToken is not valid");
  return Number(match[1]);
}
