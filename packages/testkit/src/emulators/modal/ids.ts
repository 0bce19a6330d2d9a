import { randomBytes } from "node:crypto";

const ALPHANUMERIC = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * A Modal object id: a prefix (`ap`, `im`, `st`, `en`) and 22 random letters
 * and digits, the shape the SDK's name checks expect (`ap-[a-zA-Z0-9]{22}`).
 */
export function objectId(prefix: string): string {
  return `${prefix}-${randomString(ALPHANUMERIC, 22)}`;
}

/**
 * A V2 sandbox or task id: the prefix and a 26-character ULID (time, then
 * randomness, Crockford base32). The SDK picks the sandbox API version from
 * the id's shape, and only this shape reads as V2.
 */
export function ulidId(prefix: string, now = Date.now()): string {
  let time = "";
  let rest = now;
  for (let index = 0; index < 10; index++) {
    time = CROCKFORD[rest % 32] + time;
    rest = Math.floor(rest / 32);
  }
  return `${prefix}-${time}${randomString(CROCKFORD, 16)}`;
}

function randomString(alphabet: string, length: number): string {
  let text = "";
  for (const byte of randomBytes(length)) text += alphabet[byte % alphabet.length];
  return text;
}
