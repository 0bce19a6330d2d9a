import { EXEC_MARKER_ENV, type TerminalSize, unsupported } from "@sandport/core";
import { createCallBudget, markerSweepScript, sandboxNotFound, type VendorEnd } from "@sandport/core/adapter";
import type { OutputSink, PlaneProcess, ProcessPlane } from "./data-plane.js";
import { KubernetesMalformedAnswer } from "./errors.js";
import { PROVIDER } from "./handle.js";
import type { KubeApi } from "./internal/sdk.js";
import { type ClientWebSocket, openWebSocket } from "./internal/websocket.js";

/** The exec subprotocols, preferred first: v5 can close stdin, v4 cannot. */
export const EXEC_PROTOCOLS = ["v5.channel.k8s.io", "v4.channel.k8s.io"] as const;
const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const STATUS = 3;
const RESIZE = 4;
/** v5's close message: channel 255, then the channel to close. */
const CLOSE = 255;
/** The most stdin bytes one message carries (kubectl reads and sends 32 KiB at a time). */
const STDIN_MESSAGE_BYTES = 64 * 1024;

/**
 * The pod `exec` subresource as a data plane, for templates without
 * sandboxd: one WebSocket per command on the API server
 * (`v5.channel.k8s.io`, else `v4`), its first byte the channel (0 stdin,
 * 1 stdout, 2 stderr, 3 the final `Status`). The status gives the exit
 * code (`NonZeroExitCode` with an `ExitCode` cause; `Success` is 0). Exec
 * has no process id and no signal: the kill runs a second exec that kills
 * every process carrying the command's marker (`markerSweepScript`), then
 * closes the socket. Closing stdin needs v5; on v4 it is refused. A
 * terminal is `tty=true` (its output all on channel 1), its size a resize
 * message on channel 4 (`{"Width","Height"}`), the first one sent at once.
 * Commands go to `container`, else the one `knownContainer` names (from the
 * Sandbox's pod template), else the pod's first container but sandboxd (one
 * read of the pod).
 */
export function podExecPlane(
  api: KubeApi,
  container: string | undefined,
  requestMs: () => number,
  knownContainer: (pod: string) => string | undefined = () => undefined,
): ProcessPlane {
  const containers = new Map<string, string>();
  const containerOf = async (pod: string, signal: AbortSignal): Promise<string> => {
    if (container !== undefined) return container;
    const known = containers.get(pod) ?? knownContainer(pod);
    if (known !== undefined) return known;
    const found = await api.getPod(pod, { ...createCallBudget(requestMs()), signal });
    const names = (found.spec?.containers ?? []).map((one) => one.name).filter((name) => name !== "sandboxd");
    const first = names[0] ?? found.spec?.containers?.[0]?.name;
    if (first === undefined) throw new KubernetesMalformedAnswer(`pod ${pod} lists no container`);
    containers.set(pod, first);
    return first;
  };
  const open = async (
    pod: string,
    argv: readonly string[],
    signal: AbortSignal,
    tty = false,
  ): Promise<ClientWebSocket> => {
    const target = await containerOf(pod, signal);
    const query = new URLSearchParams();
    for (const part of argv) query.append("command", part);
    query.set("container", target);
    query.set("stdin", "true");
    query.set("stdout", "true");
    // A terminal merges its output: the API server refuses stderr with tty.
    query.set("stderr", String(!tty));
    query.set("tty", String(tty));
    return openWebSocket({
      url: api.url(`/api/v1/namespaces/${api.namespace}/pods/${encodeURIComponent(pod)}/exec?${query}`),
      headers: { authorization: api.authorization() },
      protocols: EXEC_PROTOCOLS,
      ...(api.caPem === undefined ? {} : { caPem: api.caPem }),
      signal,
    });
  };
  const plane: ProcessPlane = {
    start: async (pod, script, marker, output: OutputSink, signal, pty) => {
      const socket = await open(pod, ["sh", "-c", script], signal, pty !== undefined);
      const resize = (size: TerminalSize) => {
        const body = new TextEncoder().encode(JSON.stringify({ Width: size.cols, Height: size.rows }));
        const message = new Uint8Array(body.byteLength + 1);
        message[0] = RESIZE;
        message.set(body, 1);
        socket.send(message);
      };
      // Exec takes no size: the client sends one first, as kubectl does.
      if (pty !== undefined) resize(pty);
      let status: VendorEnd | undefined;
      const ended = new Promise<VendorEnd>((resolve) => {
        socket.listen({
          onMessage: (message) => {
            const channel = message[0];
            const data = message.subarray(1);
            if (channel === STDOUT) output("stdout", data);
            else if (channel === STDERR) output("stderr", data);
            else if (channel === STATUS) status = readStatus(data);
          },
          onClose: (error) =>
            resolve(status ?? { kind: "lost", error: error ?? new Error("the exec stream closed without a status") }),
        });
      });
      const stdinClosable = socket.protocol === "v5.channel.k8s.io";
      const process: PlaneProcess = {
        pid: marker,
        ended,
        write: async (data) => {
          if (status) throw sandboxNotFound(PROVIDER, pod, "write");
          // In messages of at most STDIN_MESSAGE_BYTES, as kubectl sends what it reads: servers bound a message's size.
          for (let start = 0; start < data.byteLength || start === 0; start += STDIN_MESSAGE_BYTES) {
            const part = data.subarray(start, start + STDIN_MESSAGE_BYTES);
            const message = new Uint8Array(part.byteLength + 1);
            message[0] = STDIN;
            message.set(part, 1);
            socket.send(message);
          }
        },
        resize: async (size) => {
          if (status) throw sandboxNotFound(PROVIDER, pod, "resize");
          resize(size);
        },
        closeStdin: async () => {
          if (!stdinClosable) {
            throw unsupported(
              PROVIDER,
              "closeStdin",
              `closing stdin needs v5.channel.k8s.io; the API server chose ${socket.protocol}`,
            );
          }
          socket.send(Uint8Array.of(CLOSE, STDIN));
        },
        kill: async (killSignal) => {
          if (status) return;
          const sweep = await open(pod, ["sh", "-c", markerSweepScript(EXEC_MARKER_ENV, marker)], killSignal);
          await new Promise<void>((resolve) => {
            sweep.listen({ onMessage: () => {}, onClose: () => resolve() });
            killSignal.addEventListener("abort", () => resolve(), { once: true });
          });
          socket.close();
        },
      };
      return process;
    },
  };
  return plane;
}

/** The end a final `Status` message says: `Success` 0, `NonZeroExitCode` its code, anything else a lost run. */
export function readStatus(data: Uint8Array): VendorEnd {
  let status: {
    status?: unknown;
    reason?: unknown;
    message?: unknown;
    details?: { causes?: { reason?: unknown; message?: unknown }[] };
  };
  try {
    status = JSON.parse(new TextDecoder().decode(data));
  } catch (error) {
    return { kind: "lost", error };
  }
  if (status.status === "Success") return { kind: "exited", exitCode: 0 };
  if (status.reason === "NonZeroExitCode") {
    const cause = status.details?.causes?.find((one) => one.reason === "ExitCode");
    const code = Number(cause?.message);
    // A negative code is no process's status: the runtime's word for an end by a signal.
    if (Number.isInteger(code)) return code < 0 ? { kind: "killed" } : { kind: "exited", exitCode: code };
  }
  return {
    kind: "lost",
    error: new Error(`exec ended with ${String(status.message ?? status.reason ?? "an unknown status")}`),
  };
}
