/**
 * The slice of `@aws-sdk/client-bedrock-agentcore` this adapter uses, as
 * interfaces: the only place the SDK's types are named. `sdk-types.test.ts`
 * checks at compile time that the installed SDK still satisfies it.
 *
 * @module
 */

/** Static AWS credentials, passed as they are so the SDK's provider chain never runs. */
export interface AgentCoreCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/** The HTTP handler options the client is built with (a plain object: no defaults-mode lookup). */
export interface AgentCoreRequestHandlerOptions {
  readonly connectionTimeout?: number;
  readonly requestTimeout?: number;
}

/**
 * Every client option this adapter sets. Each one the SDK would otherwise
 * load from `AWS_*` variables, `~/.aws/config` or instance metadata is here,
 * so no loader of those runs.
 */
export interface AgentCoreClientConfig {
  region: string;
  endpoint: string;
  credentials: AgentCoreCredentials;
  credentialDefaultProvider: (input: unknown) => () => Promise<AgentCoreCredentials>;
  maxAttempts: number;
  retryMode: string;
  defaultsMode: "standard";
  useFipsEndpoint: boolean;
  useDualstackEndpoint: boolean;
  userAgentAppId: string;
  authSchemePreference: string[];
  disableClockSkewCorrection: boolean;
  requestHandler: AgentCoreRequestHandlerOptions;
}

/** The options of one `send`. */
export interface AgentCoreSendOptions {
  abortSignal?: AbortSignal;
}

/** A client: `send` and `destroy`. */
export interface AgentCoreClient {
  send(command: AgentCoreCommand<StartSessionOutput>, options?: AgentCoreSendOptions): Promise<StartSessionOutput>;
  send(command: AgentCoreCommand<GetSessionOutput>, options?: AgentCoreSendOptions): Promise<GetSessionOutput>;
  send(command: AgentCoreCommand<ListSessionsOutput>, options?: AgentCoreSendOptions): Promise<ListSessionsOutput>;
  send(command: AgentCoreCommand<StopSessionOutput>, options?: AgentCoreSendOptions): Promise<StopSessionOutput>;
  send(command: AgentCoreCommand<InvokeOutput>, options?: AgentCoreSendOptions): Promise<InvokeOutput>;
  destroy(): void;
}

/** A command object (opaque here; the type parameter names its output). */
export interface AgentCoreCommand<Output> {
  readonly input: object;
  /** Never set: carries `Output` for the overloads of `send`. */
  readonly __output?: Output;
}

/** `StartCodeInterpreterSession`'s input. */
export interface StartSessionInput {
  codeInterpreterIdentifier: string;
  name?: string;
  sessionTimeoutSeconds?: number;
  clientToken?: string;
}

/** `StartCodeInterpreterSession`'s output. */
export interface StartSessionOutput {
  codeInterpreterIdentifier: string | undefined;
  sessionId: string | undefined;
  createdAt: Date | undefined;
}

/** `GetCodeInterpreterSession`'s input. */
export interface SessionRef {
  codeInterpreterIdentifier: string;
  sessionId: string;
}

/** `GetCodeInterpreterSession`'s output. */
export interface GetSessionOutput {
  sessionId: string | undefined;
  name?: string | undefined;
  createdAt: Date | undefined;
  status: string | undefined;
}

/** `ListCodeInterpreterSessions`'s input. */
export interface ListSessionsInput {
  codeInterpreterIdentifier: string;
  maxResults?: number;
  nextToken?: string;
  status?: "READY" | "TERMINATED";
}

/** One session of a list. */
export interface SessionSummary {
  sessionId: string | undefined;
  name?: string | undefined;
  status: string | undefined;
  createdAt: Date | undefined;
}

/** `ListCodeInterpreterSessions`'s output. */
export interface ListSessionsOutput {
  items: SessionSummary[] | undefined;
  nextToken?: string | undefined;
}

/** `StopCodeInterpreterSession`'s output. */
export interface StopSessionOutput {
  sessionId: string | undefined;
}

/** One file of `writeFiles`: text or bytes. */
export interface ToolFile {
  path: string;
  text?: string;
  blob?: Uint8Array;
}

/** The tool arguments this adapter sends. */
export interface ToolArguments {
  command?: string;
  paths?: string[];
  content?: ToolFile[];
}

/** `InvokeCodeInterpreter`'s input. */
export interface InvokeInput {
  codeInterpreterIdentifier: string;
  sessionId: string;
  name: "executeCommand" | "writeFiles" | "readFiles" | "removeFiles";
  arguments: ToolArguments;
}

/** One content block of a result. */
export interface ToolContentBlock {
  type: string | undefined;
  text?: string | undefined;
  resource?:
    | {
        type?: string | undefined;
        uri?: string | undefined;
        text?: string | undefined;
        blob?: Uint8Array | undefined;
      }
    | undefined;
}

/** A tool's result. */
export interface ToolResult {
  content: ToolContentBlock[] | undefined;
  structuredContent?:
    | {
        stdout?: string | undefined;
        stderr?: string | undefined;
        exitCode?: number | undefined;
      }
    | undefined;
  isError?: boolean | undefined;
}

/** One event of Invoke's stream (the SDK throws the exception members while iterating). */
export interface InvokeEvent {
  result?: ToolResult | undefined;
}

/** `InvokeCodeInterpreter`'s output. */
export interface InvokeOutput {
  stream: AsyncIterable<InvokeEvent> | undefined;
}

/** The module members this adapter uses. */
export interface AgentCoreSdkModule {
  readonly BedrockAgentCoreClient: new (config: AgentCoreClientConfig) => AgentCoreClient;
  readonly StartCodeInterpreterSessionCommand: new (input: StartSessionInput) => AgentCoreCommand<StartSessionOutput>;
  readonly GetCodeInterpreterSessionCommand: new (input: SessionRef) => AgentCoreCommand<GetSessionOutput>;
  readonly ListCodeInterpreterSessionsCommand: new (input: ListSessionsInput) => AgentCoreCommand<ListSessionsOutput>;
  readonly StopCodeInterpreterSessionCommand: new (
    input: SessionRef & { clientToken?: string },
  ) => AgentCoreCommand<StopSessionOutput>;
  readonly InvokeCodeInterpreterCommand: new (input: InvokeInput) => AgentCoreCommand<InvokeOutput>;
}
