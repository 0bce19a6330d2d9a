import { invalidRequest } from "../errors/factories.js";
import type { Labels } from "../port/labels.js";

const LABEL_KEY = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,62}$/;
const LABEL_VALUE = /^[\u0020-\u007e\u00a0-\uffff]{0,256}$/;

/** Label keys under this prefix are Sandport's own (ownership, launch keys); callers cannot set them. */
export const RESERVED_LABEL_PREFIX = "sandport.";

/**
 * Checks a label map. Keys match `[A-Za-z0-9][A-Za-z0-9._/-]{0,62}`, values are
 * at most 256 printable characters. Reserved `sandport.*` keys are refused
 * unless `allowReserved` (lookups may name them; launches may not).
 */
export function validateLabels(
  labels: unknown,
  options: { field?: string; allowReserved?: boolean; provider?: string } = {},
): Labels | undefined {
  const field = options.field ?? "labels";
  if (labels === undefined) return undefined;
  if (typeof labels !== "object" || labels === null || Array.isArray(labels)) {
    throw invalidRequest(`${field} must be an object of key → string`, { field }, options.provider);
  }
  const copy: Record<string, string> = {};
  for (const [key, value] of Object.entries(labels)) {
    if (!LABEL_KEY.test(key)) {
      throw invalidRequest(
        `${field} key ${JSON.stringify(key)} is not a valid label key`,
        { field, key },
        options.provider,
      );
    }
    if (!options.allowReserved && key.startsWith(RESERVED_LABEL_PREFIX)) {
      throw invalidRequest(`${field} key ${JSON.stringify(key)} uses the reserved prefix "${RESERVED_LABEL_PREFIX}"`, {
        field,
        key,
      });
    }
    if (typeof value !== "string" || !LABEL_VALUE.test(value)) {
      throw invalidRequest(`${field}.${key} must be a printable string of at most 256 characters`, { field, key });
    }
    copy[key] = value;
  }
  return Object.freeze(copy);
}

/**
 * Checks the query of `findByLabels`, the same in every runtime: an object of
 * labels (reserved keys such as `sandport.launch-key` allowed); `{}` asks for
 * every sandbox of this runtime's owner. Anything else, `undefined` included,
 * is `INVALID_REQUEST`.
 */
export function validateLabelQuery(labels: unknown, provider?: string): Labels {
  const query = validateLabels(labels, { allowReserved: true, provider });
  if (query === undefined)
    throw invalidRequest("labels must be an object ({} for every sandbox)", { field: "labels" }, provider);
  return query;
}
