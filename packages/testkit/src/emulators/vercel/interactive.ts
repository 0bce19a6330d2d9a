/**
 * Where interactive processes will go once the backend port has an
 * interactive-process method. Until then nothing here is registered: the
 * route below is answered 404 and logged in `unknownRoutes` like any other.
 *
 * Vercel has no stdin for commands started with `runCommand`; interactive
 * input exists only as a PTY. `sandbox.openInteractive()` sends
 * `POST /v2/sandboxes/sessions/:sessionId/interactive` with `{}` and gets
 * `{ url, token }`. The client then opens a WebSocket to `<url>?token=<token>`
 * and sends a text frame `{ "type": "start", command, args, env: ["K=V"], cwd,
 * cols, rows }`; after that, binary frames carry stdin to the process and its
 * terminal output back, `{ "type": "resize", cols, rows }` resizes, and the
 * server ends with a text frame `{ "type": "exit", code }` (this is how the
 * Vercel CLI's `sandbox connect` drives it).
 *
 * An emulation belongs in a `registerInteractiveRoutes(server, context)` here,
 * called from `startVercelEmulator` beside the session routes, answering the
 * route with a `ws://127.0.0.1` URL served by the same emulator and bridging
 * frames to the port's interactive process.
 *
 * @module
 */

/** The route `openInteractive()` calls, as the request log names it. Not emulated yet. */
export const INTERACTIVE_ROUTE = "POST /v2/sandboxes/sessions/:sessionId/interactive";
