/**
 * Daytona routes that wait for the backend port to grow the method they
 * need. Until then they are deliberately not registered: a request to one is
 * answered 404 in the service's error shape and listed in `unknownRoutes`, so
 * an SDK call reaching it fails loudly instead of pretending to work.
 *
 * When the port gains an interactive-process method (writable stdin), the
 * session command `input` route goes into `toolbox-sessions.ts` beside the
 * other session routes, writing to the command started by `exec`; when it
 * gains a port-endpoint method, the preview routes go into `control-plane.ts`
 * and answer `{ sandboxId, url, token }` from the backend's endpoint.
 *
 * @module
 */

/** One route that is not emulated yet, and what the backend port needs before it can be. */
export interface AwaitingRoute {
  readonly method: string;
  /** Path pattern in the emulator's router syntax. */
  readonly pattern: string;
  /** The SDK call that sends it. */
  readonly sdkCall: string;
  /** What the backend port lacks. */
  readonly needs: string;
}

/** The routes waiting for the port. */
export const AWAITING_PORT_ROUTES: readonly AwaitingRoute[] = [
  {
    method: "POST",
    pattern: "/toolbox/:id/process/session/:sessionId/command/:commandId/input",
    sdkCall: "sandbox.process.sendSessionCommandInput(sessionId, commandId, data)",
    needs: "an interactive-process method with writable stdin",
  },
  {
    method: "GET",
    pattern: "/api/sandbox/:id/ports/:port/preview-url",
    sdkCall: "sandbox.getPreviewLink(port)",
    needs: "a port-endpoint method (LaunchSpec.ports and a URL per port)",
  },
  {
    method: "GET",
    pattern: "/api/sandbox/:id/ports/:port/signed-preview-url",
    sdkCall: "sandbox.getSignedPreviewUrl(port, expiresInSeconds)",
    needs: "a port-endpoint method (LaunchSpec.ports and a URL per port)",
  },
];
