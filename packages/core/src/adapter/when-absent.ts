/**
 * A rejection handler for a provider call whose one expected failure says
 * what is there: the vendor's not-found (a file, a session, a sandbox that is
 * absent) or a conflict (a session that already exists). The error `isAbsent`
 * recognises becomes `value`; any other is thrown on, unchanged. So "absent"
 * is read from that one error and never from a failure that means something else.
 *
 * ```ts
 * const text = await read(path).then((bytes) => decode(bytes), whenAbsent(isNotFound, undefined));
 * ```
 */
export function whenAbsent<T>(isAbsent: (error: unknown) => boolean, value: T): (error: unknown) => T {
  return (error) => {
    if (isAbsent(error)) return value;
    throw error;
  };
}
