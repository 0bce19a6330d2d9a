/**
 * The `fetch` the Vercel SDK is handed: it sends requests for the SDK's fixed
 * base URL to the emulator and refuses every other destination.
 *
 * @module
 */

/** The base URL the `@vercel/sandbox` SDK hard-codes (it has no option to change it). */
export const VERCEL_API_BASE = "https://vercel.com/api";

/**
 * A `fetch` that rewrites `https://vercel.com/api/<path>` to
 * `<emulatorUrl>/<path>`, keeping the method, headers, body, signal and the
 * undici `dispatcher` the SDK passes (its agent without a body timeout, which
 * long command streams need). A preview URL the emulator issued
 * (`isPreviewHost`) goes to the global `fetch`, which routes it to the
 * emulator's preview proxy (see `preview-hosts.ts`). Any other URL is refused
 * with an error before anything is sent, so a request that would leave the
 * machine fails loudly.
 */
export function createEmulatorFetch(
  emulatorUrl: () => string,
  isPreviewHost: (hostname: string) => boolean,
): typeof globalThis.fetch {
  return (input, init) => {
    const target = input instanceof Request ? input.url : input.toString();
    if (URL.canParse(target) && new URL(target).protocol === "https:" && isPreviewHost(new URL(target).hostname)) {
      return fetch(input, init);
    }
    let path: string;
    try {
      path = emulatorPath(target);
    } catch (error) {
      return Promise.reject(error);
    }
    const rewritten = `${emulatorUrl()}${path}`;
    return input instanceof Request ? fetch(new Request(rewritten, input), init) : fetch(rewritten, init);
  };
}

/** The path and query the emulator serves for a Vercel API URL. Throws for anything else. */
export function emulatorPath(target: string): string {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new TypeError(`the Vercel emulator's fetch refuses ${JSON.stringify(target)}: not an absolute URL`);
  }
  const base = new URL(VERCEL_API_BASE);
  if (url.origin !== base.origin || !(url.pathname === base.pathname || url.pathname.startsWith(`${base.pathname}/`))) {
    throw new TypeError(
      `the Vercel emulator's fetch refuses ${url.origin}${url.pathname}: it only serves ${VERCEL_API_BASE}, and nothing may leave this machine`,
    );
  }
  return `${url.pathname.slice(base.pathname.length) || "/"}${url.search}`;
}
