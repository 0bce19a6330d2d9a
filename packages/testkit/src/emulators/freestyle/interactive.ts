/**
 * Interactive processes: where the PTY routes go once the backend port can
 * run an interactive process (live output, writable stdin, resize, close).
 * The SDK's `vm.pty` speaks WebSocket on
 *
 * - `GET /v5/vms/{id}/pty` (open a session; query `cols`, `rows`, `linuxUser`, ...),
 * - `GET /v5/vms/{id}/pty/sessions/{session}` (attach to one),
 *
 * and JSON on `GET /v5/vms/{id}/pty/sessions` (list) and
 * `DELETE /v5/vms/{id}/pty/sessions/{session}` (close). The port has no such
 * method yet, so nothing is registered: these requests are answered 404 and
 * logged in `unknownRoutes` rather than faked.
 *
 * @module
 */

import type { EmulatorServer } from "../harness/http-server.js";
import type { FreestyleContext } from "./context.js";

/** Registers the PTY routes. None yet: the backend port has no interactive process to serve them with. */
export function registerInteractiveRoutes(_server: EmulatorServer, _context: FreestyleContext): void {}
