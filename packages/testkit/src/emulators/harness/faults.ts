import type { FaultRule, FaultSpec } from "./types.js";

interface ArmedRule {
  readonly route: string | RegExp;
  readonly fault: FaultSpec;
  remaining: number;
}

/**
 * Faults armed by a test, consumed by matching requests in arrival order.
 * A rule applies to the next `times` requests whose route it matches, then
 * disarms itself.
 */
export class FaultInjector {
  readonly #rules: ArmedRule[] = [];

  /** Arm a rule. Throws on a malformed rule, so a typo fails the test that wrote it. */
  add(rule: FaultRule): void {
    const times = rule.times ?? 1;
    if (!Number.isInteger(times) || times < 1)
      throw new RangeError(`fault times must be a positive integer, got ${times}`);
    validateFault(rule.fault);
    this.#rules.push({ route: rule.route, fault: rule.fault, remaining: times });
  }

  clear(): void {
    this.#rules.length = 0;
  }

  /** The fault for a request on `route`, consuming one use of the first live matching rule. */
  take(route: string): FaultSpec | undefined {
    const index = this.#rules.findIndex((rule) => matchesRoute(rule.route, route));
    if (index === -1) return undefined;
    const rule = this.#rules[index]!;
    rule.remaining -= 1;
    if (rule.remaining === 0) this.#rules.splice(index, 1);
    return rule.fault;
  }
}

/** True when `route` equals the string, or matches the pattern. */
export function matchesRoute(selector: string | RegExp, route: string): boolean {
  if (typeof selector === "string") return selector === route;
  selector.lastIndex = 0; // a /g or /y pattern keeps state between tests
  return selector.test(route);
}

function validateFault(fault: FaultSpec): void {
  switch (fault.kind) {
    case "status":
      if (!Number.isInteger(fault.status) || fault.status < 400 || fault.status > 599) {
        throw new RangeError(`a status fault needs a 4xx or 5xx status, got ${fault.status}`);
      }
      if (
        fault.retryAfterSeconds !== undefined &&
        !(Number.isInteger(fault.retryAfterSeconds) && fault.retryAfterSeconds >= 0)
      ) {
        throw new RangeError(`retryAfterSeconds must be a non-negative integer, got ${fault.retryAfterSeconds}`);
      }
      return;
    case "latency":
    case "late-response":
      if (!(Number.isFinite(fault.ms) && fault.ms >= 0))
        throw new RangeError(`latency ms must be >= 0, got ${fault.ms}`);
      return;
    case "drop-mid-stream":
      if (fault.afterEvents !== undefined && !(Number.isInteger(fault.afterEvents) && fault.afterEvents >= 0)) {
        throw new RangeError(`afterEvents must be a non-negative integer, got ${fault.afterEvents}`);
      }
      return;
    case "drop":
    case "lost-response":
      return;
    default:
      throw new TypeError(`unknown fault kind ${JSON.stringify((fault as { kind: unknown }).kind)}`);
  }
}
