/**
 * Code-interpreter sessions: start (idempotent on `clientToken`), get, list
 * (paged, newest first), stop, and the session timeout, each session a
 * sandbox on the backend runtime while it is `READY`.
 *
 * @module
 */

import type { SandboxHandle, SandboxRuntime } from "@sandport/core";
import { destroyBackendSandbox } from "../harness/backend.js";
import { randomToken, type SandboxRegistry } from "../harness/sandbox-registry.js";
import { notFound, validation } from "./errors.js";

/** What the emulator keeps of a session, `READY` or `TERMINATED`. */
export interface Session {
  readonly sessionId: string;
  readonly codeInterpreterIdentifier: string;
  readonly name: string | undefined;
  readonly sessionTimeoutSeconds: number;
  readonly createdAt: Date;
  lastUpdatedAt: Date;
  status: "READY" | "TERMINATED";
  readonly clientToken: string | undefined;
  readonly handle: SandboxHandle;
  readonly foreign: boolean;
  timer: NodeJS.Timeout | undefined;
}

/** What `StartCodeInterpreterSession` asks for, checked. */
export interface StartInput {
  readonly codeInterpreterIdentifier: string;
  readonly name: string | undefined;
  readonly sessionTimeoutSeconds: number;
  readonly clientToken: string | undefined;
}

/** The default session timeout (API reference: 900 s). */
const DEFAULT_TIMEOUT_SECONDS = 900;
const MAX_TIMEOUT_SECONDS = 28_800;
const CLIENT_TOKEN = /^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,256}$/;

/** Checks a start request's body (API reference constraints). */
export function parseStart(codeInterpreterIdentifier: string, body: Record<string, unknown>): StartInput {
  const { name, sessionTimeoutSeconds, clientToken } = body;
  if (name !== undefined && (typeof name !== "string" || name.length < 1 || name.length > 100)) {
    throw validation("name must be 1-100 characters");
  }
  if (
    sessionTimeoutSeconds !== undefined &&
    (!Number.isInteger(sessionTimeoutSeconds) ||
      (sessionTimeoutSeconds as number) < 1 ||
      (sessionTimeoutSeconds as number) > MAX_TIMEOUT_SECONDS)
  ) {
    throw validation(`sessionTimeoutSeconds must be an integer from 1 to ${MAX_TIMEOUT_SECONDS}`);
  }
  if (
    clientToken !== undefined &&
    (typeof clientToken !== "string" ||
      clientToken.length < 33 ||
      clientToken.length > 256 ||
      !CLIENT_TOKEN.test(clientToken))
  ) {
    throw validation("clientToken must be 33-256 characters of [a-zA-Z0-9](-*[a-zA-Z0-9])*");
  }
  for (const field of ["certificates", "filesystemConfigurations"]) {
    if (body[field] !== undefined) throw validation(`not emulated: ${field}`);
  }
  return {
    codeInterpreterIdentifier,
    name: name as string | undefined,
    sessionTimeoutSeconds: (sessionTimeoutSeconds as number | undefined) ?? DEFAULT_TIMEOUT_SECONDS,
    clientToken: clientToken as string | undefined,
  };
}

/** Every session the emulator has seen, and the backend sandboxes of the `READY` ones. */
export class SessionStore {
  readonly #sessions = new Map<string, Session>();
  readonly #registry: SandboxRegistry<Session>;
  readonly #backend: () => SandboxRuntime;

  constructor(registry: SandboxRegistry<Session>, backend: () => SandboxRuntime) {
    this.#registry = registry;
    this.#backend = backend;
  }

  /** Starts a session, or answers the one an earlier request with the same `clientToken` started. */
  async start(input: StartInput, foreign = false): Promise<Session> {
    if (input.clientToken !== undefined) {
      const earlier = [...this.#sessions.values()].find(
        (session) =>
          session.clientToken === input.clientToken &&
          session.codeInterpreterIdentifier === input.codeInterpreterIdentifier,
      );
      if (earlier) {
        if (earlier.name !== input.name || earlier.sessionTimeoutSeconds !== input.sessionTimeoutSeconds) {
          throw validation("the clientToken was used with other parameters", "IdempotentParameterMismatchException");
        }
        return earlier;
      }
    }
    const handle = await this.#backend().launch({ network: true });
    const now = new Date();
    const session: Session = {
      sessionId: randomToken(26),
      codeInterpreterIdentifier: input.codeInterpreterIdentifier,
      name: input.name,
      sessionTimeoutSeconds: input.sessionTimeoutSeconds,
      createdAt: now,
      lastUpdatedAt: now,
      status: "READY",
      clientToken: input.clientToken,
      handle,
      foreign,
      timer: undefined,
    };
    session.timer = setTimeout(() => void this.terminate(session), input.sessionTimeoutSeconds * 1000);
    session.timer.unref();
    this.#sessions.set(session.sessionId, session);
    this.#registry.add({
      id: session.sessionId,
      metadata: input.name === undefined ? {} : { name: input.name },
      foreign,
      state: "READY",
      createdAt: now.getTime(),
      data: session,
    });
    return session;
  }

  /** The session of an interpreter, in any status; `ResourceNotFoundException` when there is none. */
  get(codeInterpreterIdentifier: string, sessionId: string): Session {
    const session = this.#sessions.get(sessionId);
    if (!session || session.codeInterpreterIdentifier !== codeInterpreterIdentifier) {
      throw notFound(`session ${sessionId} not found`);
    }
    return session;
  }

  /** A `READY` session, for a tool call; a terminated one is not found. */
  ready(codeInterpreterIdentifier: string, sessionId: string): Session {
    const session = this.get(codeInterpreterIdentifier, sessionId);
    if (session.status !== "READY") throw notFound(`session ${sessionId} is terminated`);
    return session;
  }

  /** One page of an interpreter's sessions, newest first, optionally of one status. */
  list(
    codeInterpreterIdentifier: string,
    status: string | undefined,
    maxResults: number,
    offset: number,
  ): { readonly items: Session[]; readonly next: number | undefined } {
    const all = [...this.#sessions.values()]
      .filter((session) => session.codeInterpreterIdentifier === codeInterpreterIdentifier)
      .filter((session) => status === undefined || session.status === status)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    const items = all.slice(offset, offset + maxResults);
    return { items, next: offset + maxResults < all.length ? offset + maxResults : undefined };
  }

  /** Terminates a session and destroys its backend sandbox; a terminated one stays terminated. */
  async terminate(session: Session): Promise<void> {
    if (session.status === "TERMINATED") return;
    session.status = "TERMINATED";
    session.lastUpdatedAt = new Date();
    clearTimeout(session.timer);
    this.#registry.delete(session.sessionId);
    await destroyBackendSandbox(this.#backend(), session.handle).catch(() => undefined);
  }

  /** Terminates every session (the emulator is stopping). */
  async close(): Promise<void> {
    await Promise.all([...this.#sessions.values()].map((session) => this.terminate(session)));
  }
}
