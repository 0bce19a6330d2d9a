import { randomUUID } from "node:crypto";
import { invalidRequest, type Labels, SandportError, sleep, unsupported, validateForkOptions } from "@sandport/core";
import { callerLabels, createCallBudget, metadataCodec, sandboxNotFound, whenAbsent } from "@sandport/core/adapter";
import { type DaytonaContext, seconds } from "./context.js";
import { isNotFound, mapDaytonaError, statusOf } from "./errors.js";
import { type DaytonaHandle, handleFromSandbox, PROVIDER, SDK_LANGUAGE_LABEL } from "./handle.js";
import type { DaytonaSandbox, DaytonaSandboxRecord } from "./internal/sdk-types.js";
import { deleteSandbox } from "./lifecycle.js";
import { repeatable } from "./run-script.js";

/** The classes Daytona forks (its API refuses any other with 422 "Forking is not supported for this sandbox"). */
const FORKABLE_CLASSES: ReadonlySet<string> = new Set(["linux-vm", "windows"]);
/** What every fork is named, before a UUID: a fork whose answer was lost is found by this name. */
const FORK_NAME_PREFIX = "sandport-fork-";
/** Waits between the looks for a fork whose request failed without an answer, in ms (a create's backoff). */
const LOOKUP_DELAYS_MS: readonly number[] = [250, 500, 1_000, 2_000, 4_000];
/** How long after such a request a look by name that finds nothing is trusted to mean nothing was made. */
const LOOKUP_TRUSTED_AFTER_MS = 5_000;

/**
 * Forks a started sandbox of ours with Daytona's own fork (the SDK's
 * `Sandbox.fork`, `_experimental_fork` in 0.180: one `POST
 * /api/sandbox/{id}/fork`, then a wait until the fork is started), then
 * gives the fork its own labels (one `PUT /api/sandbox/{id}/labels`, the
 * SDK's `setLabels`): Daytona copies every label of the source, the launch
 * key with them, and the port wants the fork to carry a launch key of its
 * own and the caller's labels (`options.labels`, else the source's).
 *
 * Before the fork request: the options are checked (`INVALID_REQUEST`), the
 * source is read once (absent: `NOT_FOUND`; not ours: `FOREIGN_SANDBOX`), and
 * what Daytona cannot fork faithfully is refused `UNSUPPORTED`: a class other
 * than a VM (Daytona forks `linux-vm` and `windows` sandboxes only), a
 * source not started, and a source with a `domainAllowList` (Daytona's fork
 * copies `networkAllowList`, not the domain list, so the fork would reach
 * more than its source).
 *
 * A fork that fails once its request was sent leaves nothing behind: what it
 * made is deleted in the background (`settle()` waits), found by id, or by
 * its name (`sandport-fork-<uuid>`) when the request failed without an
 * answer or the SDK's wait failed. A failed label update deletes the fork
 * the same way.
 */
export function fork(context: DaytonaContext, handle: unknown, options?: unknown): Promise<DaytonaHandle> {
  let validated: ReturnType<typeof validateForkOptions>;
  try {
    validated = validateForkOptions(options, PROVIDER);
    refuseLanguageLabel(validated.labels);
  } catch (error) {
    return Promise.reject(error);
  }
  const { op, labels } = validated;
  const forkName = `${FORK_NAME_PREFIX}${randomUUID()}`;
  let creation: Promise<DaytonaSandbox> | undefined;
  const forking = context.onHandle(handle, op, "fork", context.options.timeouts.launchMs, async (sourceId, call) => {
    const record = await context.ownedInfo(sourceId, "fork", call);
    if (record === undefined) throw sandboxNotFound(PROVIDER, sourceId, "fork");
    refuseUnforkable(record);
    const launchKey = randomUUID();
    const kept = labels ?? withoutLanguage(callerLabels(record.labels));
    const language = record.labels?.[SDK_LANGUAGE_LABEL];
    const stored = {
      ...metadataCodec.encode(context.options.owner, kept, launchKey),
      ...(language === undefined ? {} : { [SDK_LANGUAGE_LABEL]: language }),
    };
    const source = await context.instance(sourceId, "fork", call);
    // A caller that gave up meanwhile sends nothing.
    call.signal.throwIfAborted();
    // Not bound to the caller's signal: a fork already sent is left to finish, and deleted if abandoned.
    creation = forkCall(source)({ name: forkName }, seconds(call.remainingMs()));
    const forked = await creation.catch((error: unknown) => {
      throw refusedFork(error, sourceId);
    });
    context.known.markOwned(forked.id);
    call.signal.throwIfAborted();
    const site = { operation: "fork", sandboxId: forked.id };
    await repeatable(call, site, () => forked.setLabels(stored));
    // Never pristine: the fork holds whatever the source's commands left, symlinks included.
    context.remember(forked.id, forked);
    const { cpu, memory, disk } = forked;
    return handleFromSandbox({ id: forked.id, labels: kept, createdAt: forked.createdAt, cpu, memory, disk });
  });
  return forking.catch((error: unknown) => {
    if (creation !== undefined) discardFork(context, creation, forkName);
    throw error;
  });
}

/** The SDK's fork on a sandbox: `fork` from 0.216, `_experimental_fork` in 0.180. */
function forkCall(sandbox: DaytonaSandbox): (params: { name: string }, timeout: number) => Promise<DaytonaSandbox> {
  const call = sandbox.fork ?? sandbox._experimental_fork;
  if (call === undefined) throw unsupported(PROVIDER, "fork", "the installed Daytona SDK has no Sandbox.fork");
  return (params, timeout) => call.call(sandbox, params, timeout);
}

/** What Daytona cannot fork, or cannot fork into what the port promises: `UNSUPPORTED`, before the fork request. */
function refuseUnforkable(record: DaytonaSandboxRecord): void {
  const { sandboxClass, state, domainAllowList } = record;
  if (sandboxClass !== undefined && !FORKABLE_CLASSES.has(sandboxClass)) {
    throw unsupported(
      PROVIDER,
      `forking a ${sandboxClass} sandbox`,
      "Daytona forks VM sandboxes only (class linux-vm or windows); snapshot and launch({ from }) copy any sandbox",
    );
  }
  if (state !== "started") {
    throw unsupported(
      PROVIDER,
      `forking a sandbox that is ${state ?? "in no known state"}`,
      "Daytona forks a started sandbox only: start it first",
    );
  }
  if (domainAllowList) {
    throw unsupported(
      PROVIDER,
      "forking a sandbox with a domain allow list",
      "Daytona's fork copies networkAllowList but not domainAllowList: the fork would reach more than its source",
    );
  }
}

/**
 * A fork Daytona answered 422 ("Forking is not supported for this sandbox",
 * or "… for GPU sandboxes": a source whose class the API did not report) is
 * `UNSUPPORTED`, the vendor error its cause; any other failure goes on as it is.
 */
function refusedFork(error: unknown, sandboxId: string): unknown {
  if (statusOf(mapDaytonaError(error, { operation: "fork", sandboxId })) !== 422) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new SandportError({
    code: "UNSUPPORTED",
    provider: PROVIDER,
    retryable: false,
    cause: error,
    message: `${PROVIDER} does not support forking sandbox ${sandboxId}: ${reason}`,
    details: { feature: "fork", sandboxId },
  });
}

/** The SDK sets this label on every sandbox; a caller's would be overwritten (as a launch refuses it). */
function refuseLanguageLabel(labels: Labels | undefined): void {
  if (labels?.[SDK_LANGUAGE_LABEL] === undefined) return;
  throw invalidRequest(
    `label ${SDK_LANGUAGE_LABEL} is reserved: the Daytona SDK sets it on every sandbox`,
    { field: "labels", key: SDK_LANGUAGE_LABEL },
    PROVIDER,
  );
}

function withoutLanguage(labels: Labels): Labels {
  const { [SDK_LANGUAGE_LABEL]: _language, ...rest } = labels;
  return rest;
}

/**
 * Deletes, in the background, what a failed fork made: the fork the request
 * answered with, else (the request failed without a refusal, or the SDK's
 * wait after it failed) the sandbox named `forkName`, looked up until a
 * look that finds none can be trusted. A request Daytona refused (a 4xx)
 * made nothing.
 */
function discardFork(context: DaytonaContext, creation: Promise<DaytonaSandbox>, forkName: string): void {
  const { destroyMs } = context.options.timeouts;
  context.background.track(async () => {
    let forkId: string | undefined;
    try {
      forkId = (await creation).id;
    } catch (error) {
      if (refusedBeforeCreating(error)) return;
      forkId = await findByName(context, forkName);
    }
    if (forkId !== undefined) await deleteSandbox(context, forkId, createCallBudget(destroyMs));
  });
}

/** A fork request Daytona answered with a 4xx: it made nothing. */
function refusedBeforeCreating(error: unknown): boolean {
  const status = statusOf(mapDaytonaError(error, { operation: "fork" }));
  return status !== undefined && status >= 400 && status < 500;
}

/** The id of the sandbox named `name`, looked up with backoff until it turns up or a miss can be trusted. */
async function findByName(context: DaytonaContext, name: string): Promise<string | undefined> {
  const trustedAt = Date.now() + LOOKUP_TRUSTED_AFTER_MS;
  const api = await context.api();
  for (let attempt = 0; ; attempt++) {
    const budget = createCallBudget(context.options.timeouts.lookupMs);
    const found = await api
      .getSandbox(name, undefined, undefined, context.requestOptions(budget))
      .then(({ data }) => (data.state === "destroyed" ? undefined : data.id), whenAbsent(isNotFound, undefined));
    if (found !== undefined || Date.now() >= trustedAt) return found;
    // The last look is the one at the moment a miss can be trusted.
    const backoff = LOOKUP_DELAYS_MS[Math.min(attempt, LOOKUP_DELAYS_MS.length - 1)] ?? 0;
    await sleep(Math.min(backoff, Math.max(0, trustedAt - Date.now())));
  }
}
