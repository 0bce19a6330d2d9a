import { type OperationCall, pause } from "@sandport/core/adapter";
import type { KubernetesContext } from "./context.js";
import type { ObjectMeta } from "./internal/sdk-types.js";
import { watchObject } from "./internal/watch.js";

/** The pause before reading again after a watch that could not be opened or broke. */
const RETRY_PAUSE_MS = 200;

/** How to wait for one object to reach a state. */
export interface WaitFor<T extends { metadata: ObjectMeta }, R> {
  /** Reads the object (a `GET`; its errors mapped by the caller). */
  readonly read: () => Promise<T>;
  /** The collection path the object is watched in. */
  readonly collection: string;
  readonly name: string;
  /** The awaited answer for this state of the object, or `undefined` to go on waiting (it may throw). */
  readonly done: (object: T) => R | undefined;
  /** The object as the caller already has it (a create's answer): the first look, instead of a read. */
  readonly initial?: T;
}

/**
 * Waits for an object's state by watching it rather than polling: one
 * `GET` (or the object the caller has, `initial`), then a watch from that `resourceVersion` (by name) that checks
 * every change. When the watch's version is too old (a 410 `Expired`
 * `ERROR`), it ended (its `timeoutSeconds`), the object was deleted, or the
 * watch request was refused or broke, the object is read again (a re-list:
 * a deleted object's read fails as the caller maps it) and a new watch
 * starts from there, after a short pause when the watch failed.
 * Bounded by the call's deadline and signal.
 */
export async function waitFor<T extends { metadata: ObjectMeta }, R>(
  context: KubernetesContext,
  wait: WaitFor<T, R>,
  call: OperationCall,
): Promise<R> {
  let initial = wait.initial;
  for (;;) {
    const object = initial ?? (await wait.read());
    initial = undefined;
    const answer = wait.done(object);
    if (answer !== undefined) return answer;
    const version = object.metadata.resourceVersion;
    const watched =
      version === undefined
        ? "failed"
        : await watchObject(context.api, wait.collection, wait.name, version, call, wait.done).catch(
            (error: unknown) => {
              // A watch refused or broken is not the wait's failure: the next read says how the object stands.
              if (call.signal.aborted) throw call.signal.reason;
              if (call.remainingMs() <= 0) throw error;
              return "failed" as const;
            },
          );
    if (watched === "failed") await pause(RETRY_PAUSE_MS, call.signal);
    else if (watched !== "expired" && watched !== "ended" && watched !== "deleted") return watched;
  }
}
