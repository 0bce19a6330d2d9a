/**
 * `status.conditions` entries (metav1.Condition) and reading them back.
 *
 * @module
 */

/** One metav1.Condition. */
export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

/** A condition stamped now. */
export function condition(type: string, status: Condition["status"], reason: string, message: string): Condition {
  return { type, status, reason, message, lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, "Z") };
}

/** Replace (or add) the condition of the same type, keeping its transition time when its status did not change. */
export function setCondition(conditions: readonly Condition[] | undefined, next: Condition): Condition[] {
  const list = [...(conditions ?? [])];
  const index = list.findIndex((entry) => entry.type === next.type);
  if (index === -1) return [...list, next];
  const previous = list[index]!;
  list[index] = previous.status === next.status ? { ...next, lastTransitionTime: previous.lastTransitionTime } : next;
  return list;
}

/** The condition of a type in a status, if any. */
export function findCondition(status: Record<string, unknown> | undefined, type: string): Condition | undefined {
  const conditions = status?.conditions as Condition[] | undefined;
  return conditions?.find((entry) => entry.type === type);
}
