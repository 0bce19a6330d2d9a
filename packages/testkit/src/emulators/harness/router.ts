import type { Exchange } from "./exchange.js";

/** How a route answers a request the harness itself rejects (status fault, handler crash). */
export type ErrorReplier = (exchange: Exchange, status: number, message: string, retryAfterSeconds?: number) => void;

/** One route of an emulator. */
export interface RouteDefinition {
  /** HTTP method, upper case. */
  readonly method: string;
  /**
   * Path pattern; `:name` segments capture one path segment into `exchange.params`, and a
   * last `*name` segment captures one or more remaining segments (undecoded, joined by `/`).
   */
  readonly pattern: string;
  /** Route name used in request records and fault rules. Default: `"<METHOD> <pattern>"`. */
  readonly name?: string;
  /** Does the work and answers. */
  readonly handler: (exchange: Exchange) => Promise<void> | void;
  /** How errors on this route are shaped (JSON REST error, Connect error, ...). Default: the server's. */
  readonly errorReply?: ErrorReplier;
}

/** A route found for a request. */
export interface RouteMatch {
  readonly route: RouteDefinition;
  readonly name: string;
  readonly params: Record<string, string>;
}

interface CompiledRoute {
  readonly definition: RouteDefinition;
  readonly name: string;
  readonly segments: readonly string[];
}

/** Method + path pattern matching. Literal segments beat parameters; otherwise first added wins. */
export class Router {
  readonly #routes: CompiledRoute[] = [];

  add(route: RouteDefinition): void {
    if (!route.pattern.startsWith("/")) throw new Error(`route pattern must start with '/': ${route.pattern}`);
    this.#routes.push({
      definition: route,
      name: route.name ?? `${route.method} ${route.pattern}`,
      segments: splitPath(route.pattern),
    });
  }

  match(method: string, pathname: string): RouteMatch | undefined {
    const segments = splitPath(pathname);
    let best: { match: RouteMatch; literals: number } | undefined;
    for (const route of this.#routes) {
      if (route.definition.method !== method) continue;
      const rest = route.segments.at(-1)?.startsWith("*") === true;
      if (rest ? segments.length < route.segments.length : route.segments.length !== segments.length) continue;
      const params: Record<string, string> = {};
      let literals = 0;
      let ok = true;
      for (let index = 0; index < route.segments.length && ok; index++) {
        const expected = route.segments[index]!;
        const actual = segments[index]!;
        if (expected.startsWith("*")) {
          // A trailing `*name` takes every remaining segment, still percent-encoded, joined by `/`.
          params[expected.slice(1)] = segments.slice(index).join("/");
        } else if (expected.startsWith(":")) {
          let decoded: string;
          try {
            decoded = decodeURIComponent(actual);
          } catch {
            ok = false;
            break;
          }
          params[expected.slice(1)] = decoded;
        } else if (expected === actual) {
          literals += 1;
        } else {
          ok = false;
        }
      }
      if (ok && (best === undefined || literals > best.literals)) {
        best = { match: { route: route.definition, name: route.name, params }, literals };
      }
    }
    return best?.match;
  }
}

function splitPath(path: string): string[] {
  return path.split("/").filter((segment) => segment !== "");
}
