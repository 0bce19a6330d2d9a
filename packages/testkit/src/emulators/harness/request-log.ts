import type { IncomingHttpHeaders } from "node:http";
import { matchesRoute } from "./faults.js";
import type { EmulatorRequestRecord } from "./types.js";

/** A record whose status the server fills in once it answers. */
export interface MutableRequestRecord extends EmulatorRequestRecord {
  status: number;
  endedAt?: number;
}

/** Every request an emulator received, and the ones that matched no route. */
export class RequestLog {
  readonly records: MutableRequestRecord[] = [];
  readonly unknownRoutes: string[] = [];

  /** Record a request at arrival, so counts are exact even before its answer is complete. */
  add(method: string, path: string, route: string, headers: IncomingHttpHeaders): MutableRequestRecord {
    const record: MutableRequestRecord = {
      method,
      path,
      route,
      status: 0,
      startedAt: Date.now(),
      headers: flattenHeaders(headers),
    };
    this.records.push(record);
    return record;
  }

  addUnknown(method: string, pathname: string): void {
    this.unknownRoutes.push(`${method} ${pathname}`);
  }

  count(route?: string | RegExp): number {
    if (route === undefined) return this.records.length;
    return this.records.filter((record) => matchesRoute(route, record.route)).length;
  }

  reset(): void {
    this.records.length = 0;
    this.unknownRoutes.length = 0;
  }
}

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}
