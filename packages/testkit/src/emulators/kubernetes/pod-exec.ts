/**
 * The pod `exec` subresource over WebSocket, the channel protocols
 * `v5.channel.k8s.io` and `v4.channel.k8s.io`: every binary message starts
 * with its channel (0 stdin, 1 stdout, 2 stderr, 3 the final `Status` as
 * JSON, 4 terminal resize as `{"Width","Height"}`); v5 adds a close signal
 * (`[255, channel]`), with which a client ends stdin.
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";
import { PODS } from "./kinds.js";
import { CommandNotFoundError, PodProcessHandle, type ProcessEvent } from "./pod-process.js";
import type { PodRuntime } from "./pod-runtime.js";
import { KubeApiError, notFound } from "./status.js";

/** The subprotocols served, most preferred first. */
export const EXEC_PROTOCOLS = ["v5.channel.k8s.io", "v4.channel.k8s.io"] as const;

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const RESIZE = 4;
const CLOSE = 255;

/** Serve one exec request on a pod (the caller checked the token). */
export async function servePodExec(exchange: Exchange, pod: PodRuntime | undefined, name: string): Promise<void> {
  if (pod === undefined || !pod.running) throw notFound(PODS, name);
  const query = exchange.url.searchParams;
  const command = query.getAll("command");
  if (command.length === 0) throw new KubeApiError(400, "BadRequest", "you must specify at least 1 command");
  if (!exchange.wantsWebSocket) {
    throw new KubeApiError(
      400,
      "BadRequest",
      "Upgrade request required (this emulator serves exec over WebSocket only)",
    );
  }
  const offered = (exchange.header("sec-websocket-protocol") ?? "").split(",").map((entry) => entry.trim());
  const protocol = EXEC_PROTOCOLS.find((candidate) => offered.includes(candidate));
  if (protocol === undefined) {
    throw new KubeApiError(
      400,
      "BadRequest",
      `none of the offered subprotocols (${offered.join(", ") || "none"}) is served; use ${EXEC_PROTOCOLS.join(" or ")}`,
    );
  }
  const flag = (key: string) => query.get(key) === "true" || query.get(key) === "1";
  const tty = flag("tty");
  const wantStdin = flag("stdin");
  const wantStdout = flag("stdout");
  const wantStderr = flag("stderr") && !tty;

  const socket = exchange.acceptWebSocket({ protocol });
  if (socket === undefined) return;
  // Client messages are applied in arrival order, once the process has started (frames sent
  // right after the handshake wait for it).
  let markStarted: (process: PodProcessHandle | undefined) => void = () => {};
  let inbound: Promise<PodProcessHandle | undefined> = new Promise((resolve) => {
    markStarted = resolve;
  });
  socket.onMessage = (data) => {
    const channel = data[0];
    const payload = data.subarray(1);
    inbound = inbound.then(async (process) => {
      try {
        if (process === undefined) return process;
        if (channel === STDIN && wantStdin) await process.write(payload);
        else if (channel === RESIZE) {
          const size = JSON.parse(payload.toString("utf8")) as { Width?: number; Height?: number };
          if (size.Width && size.Height) await process.resize(size.Width, size.Height);
        } else if (channel === CLOSE && protocol === "v5.channel.k8s.io" && payload[0] === STDIN) {
          await process.closeStdin();
        }
      } catch {
        // A write to a process that just ended is dropped, as the kubelet drops it.
      }
      return process;
    });
  };
  let process: PodProcessHandle;
  try {
    process = await PodProcessHandle.start(pod, {
      command,
      env: {},
      ...(tty ? { pty: { cols: 80, rows: 24 } } : {}),
    });
  } catch (error) {
    markStarted(undefined);
    // The kubelet upgrades first, then reports a command it cannot start on the error channel.
    const message =
      error instanceof CommandNotFoundError
        ? `exec: "${command[0]}": executable file not found in $PATH`
        : `failed to start the command: ${error instanceof Error ? error.message : String(error)}`;
    socket.send(
      framed(ERROR, Buffer.from(JSON.stringify({ metadata: {}, status: "Failure", message, reason: "InternalError" }))),
    );
    socket.close(1000);
    await new Promise<void>((resolve) => {
      if (socket.signal.aborted) resolve();
      else socket.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    return;
  }
  if (!wantStdin) await process.closeStdin().catch(() => {});
  markStarted(process);
  await new Promise<void>((resolve) => {
    const onGone = () => {
      void process.cancel().finally(resolve);
    };
    socket.signal.addEventListener("abort", onGone, { once: true });
    process.subscribe((event: ProcessEvent) => {
      if (event.type === "stdout" && wantStdout) socket.send(framed(STDOUT, event.bytes));
      else if (event.type === "stderr" && wantStderr) socket.send(framed(STDERR, event.bytes));
      else if (event.type === "exit") {
        socket.signal.removeEventListener("abort", onGone);
        socket.send(framed(ERROR, Buffer.from(JSON.stringify(exitStatus(event.exitCode)))));
        socket.close(1000);
        resolve();
      }
    });
  });
}

function framed(channel: number, bytes: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([channel]), bytes]);
}

/** The channel-3 `Status` the kubelet sends when the command ends. */
function exitStatus(exitCode: number): Record<string, unknown> {
  if (exitCode === 0) return { metadata: {}, status: "Success" };
  return {
    metadata: {},
    status: "Failure",
    message: `command terminated with non-zero exit code: error executing command [...], exit code ${exitCode}`,
    reason: "NonZeroExitCode",
    details: { causes: [{ reason: "ExitCode", message: String(exitCode) }] },
  };
}
