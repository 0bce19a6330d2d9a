/**
 * Name resolution for preview URLs, for this process's global `fetch`.
 *
 * The SDK's `sandbox.domain(port)` always builds `https://<subdomain>.vercel.run`,
 * and a caller reaches it with whatever HTTP client it has: in tests, the
 * platform `fetch`. No DNS name under `vercel.run` leads to this machine, so
 * while an emulator runs it wraps the global dispatcher of Node's `fetch`
 * (undici's, under `Symbol.for("undici.globalDispatcher.1")`): a request to a
 * host it issued goes, as plain HTTP, to the emulator's preview proxy, with
 * the subdomain as the first path segment; every other request is left
 * alone. The wrapper is installed with the first emulator and removed with
 * the last, and only routes the hosts some running emulator resolves.
 *
 * @module
 */

/** Maps a host name to the origin of the preview proxy that serves it, or `undefined` when it is not one's. */
export type PreviewResolver = (hostname: string) => string | undefined;

/** The key under which Node's `fetch` keeps its global dispatcher. */
const GLOBAL_DISPATCHER = Symbol.for("undici.globalDispatcher.1");

/** The part of an undici dispatcher this wrapper touches. */
interface Dispatcher {
  dispatch(options: DispatchOptions, handler: unknown): boolean;
}

/** The part of a request's dispatch options this wrapper rewrites. */
interface DispatchOptions {
  readonly origin?: string | URL;
  readonly path: string;
}

const resolvers = new Set<PreviewResolver>();
let installing: Promise<{ readonly original: Dispatcher; readonly wrapper: Dispatcher }> | undefined;

/**
 * Routes the hosts `resolver` knows, for the global `fetch` of this process,
 * until the returned function is called.
 */
export async function routePreviewHosts(resolver: PreviewResolver): Promise<() => void> {
  resolvers.add(resolver);
  installing ??= install();
  try {
    await installing;
  } catch (error) {
    resolvers.delete(resolver);
    installing = undefined;
    throw error;
  }
  return () => {
    if (!resolvers.delete(resolver) || resolvers.size > 0) return;
    const done = installing;
    installing = undefined;
    void done?.then(({ original, wrapper }) => {
      const slot = globalThis as unknown as Record<symbol, unknown>;
      if (slot[GLOBAL_DISPATCHER] === wrapper) slot[GLOBAL_DISPATCHER] = original;
    });
  };
}

/** The proxy origin and path for a request to `origin` + `path`, when some emulator serves its host. */
export function previewTarget(origin: string | URL, path: string): { origin: string; path: string } | undefined {
  const { hostname } = new URL(String(origin));
  for (const resolve of resolvers) {
    const proxy = resolve(hostname);
    if (proxy !== undefined) return { origin: proxy, path: `/${hostname}${path}` };
  }
  return undefined;
}

async function install(): Promise<{ original: Dispatcher; wrapper: Dispatcher }> {
  const slot = globalThis as unknown as Record<symbol, Dispatcher | undefined>;
  // Node loads its fetch (and creates the global dispatcher) on first use; a data: URL needs no network.
  await (await fetch("data:,")).arrayBuffer();
  const original = slot[GLOBAL_DISPATCHER];
  if (typeof original?.dispatch !== "function") {
    throw new Error("the Vercel emulator cannot route preview URLs: Node's fetch has no global dispatcher");
  }
  const wrapper = Object.create(original, {
    dispatch: {
      value: (options: DispatchOptions, handler: unknown) => {
        const target = options.origin === undefined ? undefined : previewTarget(options.origin, options.path);
        return original.dispatch(target === undefined ? options : { ...options, ...target }, handler);
      },
    },
  }) as Dispatcher;
  slot[GLOBAL_DISPATCHER] = wrapper;
  return { original, wrapper };
}
