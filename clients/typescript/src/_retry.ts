/**
 * Retrying calls that failed with UNAVAILABLE, and re-joining dropped runs.
 *
 * The rules are the Python client's (`graphwire/_retry.py`,
 * `graphwire/_async_run.py`):
 *
 * - a run call (`invoke`, `resume`, `fork`) and `updateState` carry a
 *   `requestId` (a new UUID per logical call unless the caller names one),
 *   sent unchanged with every attempt, so the server applies the call once;
 * - a run call is retried only while none of its events has arrived; after
 *   that, a run that goes on without its caller (`onDisconnect: "continue"`,
 *   `background`, a join) is re-joined with `JoinRun` from the last `seq`
 *   received, and events already seen are dropped; any other run was
 *   cancelled with its connection, so the error is reported;
 * - reads are retried as they are;
 * - tries in a row that bring no event are bounded by `attempts`, the waits
 *   between them grow from `initialBackoffMs` by `multiplier` up to
 *   `maxBackoffMs`, spread by `jitter`; `timeoutMs` bounds the whole call.
 *
 * @internal
 */

import type { StreamSink } from "./_transport.js";
import { CancelledError, UnavailableError, type GraphwireError } from "./errors.js";
import type * as pb from "./gen/graphwire/v1/graphwire_pb.js";

/** How UNAVAILABLE is retried; every field has a default. */
export interface RetryPolicy {
  /** The most tries of one call in a row without progress, the first included (default 5; 1: no retry). */
  attempts?: number | undefined;
  /** Milliseconds before the first retry (default 200). */
  initialBackoffMs?: number | undefined;
  /** The longest wait between two tries (default 5000). */
  maxBackoffMs?: number | undefined;
  /** How much each wait grows over the previous one (default 2). */
  multiplier?: number | undefined;
  /** How far, as a fraction, a wait may stray from its nominal value (default 0.2). */
  jitter?: number | undefined;
}

export type Policy = Required<{ [K in keyof RetryPolicy]: number }>;

export const DEFAULT_RETRY: Policy = {
  attempts: 5,
  initialBackoffMs: 200,
  maxBackoffMs: 5000,
  multiplier: 2,
  jitter: 0.2,
};

export const NO_RETRY: Policy = { ...DEFAULT_RETRY, attempts: 1 };

/** A `retry` option as a policy: `false` none, `true`/omitted `fallback`, an object merged over the defaults. */
export function policy(value: RetryPolicy | boolean | undefined, fallback: Policy): Policy {
  if (value === undefined) return fallback;
  if (value === true) return DEFAULT_RETRY;
  if (value === false) return NO_RETRY;
  const merged = { ...DEFAULT_RETRY, ...definedOnly(value) };
  if (!Number.isInteger(merged.attempts) || merged.attempts < 1) {
    throw new RangeError(`retry.attempts is an integer of at least 1 (1: no retry), not ${merged.attempts}`);
  }
  if (merged.initialBackoffMs < 0 || merged.maxBackoffMs < 0) throw new RangeError("retry backoffs are at least 0 ms");
  if (merged.multiplier < 1) throw new RangeError(`retry.multiplier is at least 1, not ${merged.multiplier}`);
  if (!(merged.jitter >= 0 && merged.jitter <= 1)) {
    throw new RangeError(`retry.jitter is a fraction from 0 to 1, not ${merged.jitter}`);
  }
  return merged;
}

function definedOnly(value: RetryPolicy): Partial<Policy> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<Policy>;
}

/** Milliseconds to wait before retry number `retry` (1 for the first). */
export function backoffMs(p: Policy, retry: number, random: () => number = Math.random): number {
  const nominal = Math.min(p.maxBackoffMs, p.initialBackoffMs * p.multiplier ** (retry - 1));
  const spread = 1 - p.jitter + 2 * p.jitter * random();
  return Math.min(p.maxBackoffMs, nominal * spread);
}

/** Where a run's stream is: shared by the retry loop (which writes it) and the `Run` (which shows it). */
export interface Progress {
  runId: string | null;
  seq: number;
  calls: number;
}

type Cancel = { cancel(): void };

/** What the loop needs to make one gRPC call: a sink, the milliseconds left (undefined: no deadline). */
export interface Calls {
  /** The call itself (Invoke, Resume, Fork); null for a join, which starts with a `runId`. */
  start: ((sink: StreamSink<pb.RunEvent>, timeoutMs: number | undefined) => Cancel) | null;
  join: (runId: string, afterSeq: number, sink: StreamSink<pb.RunEvent>, timeoutMs: number | undefined) => Cancel;
}

/**
 * Starts a run's stream and keeps it going across retries and re-joins, as a
 * `Run`'s `StartCall`: the sink sees each event once, in order, then one end
 * or one error.
 */
export function resilientStream(
  calls: Calls,
  p: Policy,
  o: {
    rejoin: boolean;
    timeoutMs?: number | undefined;
    signal?: AbortSignal | undefined;
    progress: Progress;
    requestId?: string | undefined;
  },
): (sink: StreamSink<pb.RunEvent>) => Cancel {
  return (sink) => {
    const progress = o.progress;
    const deadline = o.timeoutMs === undefined ? undefined : Date.now() + o.timeoutMs;
    let current: Cancel | null = null;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let done = false;
    let fruitless = 0;

    const finish = (outcome: () => void): void => {
      if (done) return;
      done = true;
      if (timer !== null) clearTimeout(timer);
      o.signal?.removeEventListener("abort", onAbort);
      outcome();
    };
    const onAbort = (): void => {
      // During a wait between tries there is no call to cancel: end here.
      if (timer !== null) finish(() => sink.error(new CancelledError("the call was cancelled by its AbortSignal")));
    };
    o.signal?.addEventListener("abort", onAbort, { once: true });

    const waitBefore = (error: GraphwireError): number | null => {
      if (!(error instanceof UnavailableError) || fruitless >= p.attempts) return null;
      if (progress.runId !== null && !o.rejoin) return null; // that run was cancelled with its connection
      const wait = backoffMs(p, fruitless);
      if (deadline !== undefined && Date.now() + wait >= deadline) return null;
      return wait;
    };

    const attempt = (): void => {
      timer = null;
      if (done) return;
      const left = deadline === undefined ? undefined : Math.max(0, deadline - Date.now());
      progress.calls++;
      const inner: StreamSink<pb.RunEvent> = {
        message(message) {
          if (done) return;
          if (message.runId === progress.runId && message.seq <= progress.seq) return; // seen before the drop
          progress.runId = message.runId || progress.runId;
          progress.seq = message.seq;
          fruitless = 0;
          sink.message(message);
        },
        error(error) {
          if (done) return;
          fruitless++;
          const wait = waitBefore(error);
          if (wait === null) finish(() => sink.error(stopped(error, progress, o)));
          else timer = setTimeout(attempt, wait);
        },
        end() {
          finish(() => sink.end());
        },
      };
      current =
        progress.runId === null && calls.start !== null
          ? calls.start(inner, left)
          : calls.join(progress.runId ?? "", progress.seq, inner, left);
    };
    attempt();
    return {
      cancel() {
        if (timer !== null) clearTimeout(timer);
        timer = null;
        done = true;
        current?.cancel();
      },
    };
  };
}

/**
 * A run stopped by a dropped connection (one that does not continue without its caller)
 * raises an UnavailableError naming the run and the call's `requestId`, and saying how to
 * finish it: the same call with that `requestId` (a call with a new one applies its input again).
 */
function stopped(
  error: GraphwireError,
  progress: Progress,
  o: { rejoin: boolean; requestId?: string | undefined },
): GraphwireError {
  if (!(error instanceof UnavailableError) || progress.runId === null || o.rejoin) return error;
  const how =
    o.requestId !== undefined
      ? `call again with requestId ${JSON.stringify(o.requestId)} to finish it without applying its input twice`
      : "pass requestId to make a call again the same call";
  return new UnavailableError(
    `${error.message} (the connection dropped while run ${progress.runId} ran, which stopped with it; ${how})`,
    { metadata: error.metadata, cause: error, runId: progress.runId, requestId: o.requestId ?? null },
  );
}

/** A unary call retried on UNAVAILABLE under `p`, within `timeoutMs`. */
export async function retryingUnary<T>(
  p: Policy,
  timeoutMs: number | undefined,
  signal: AbortSignal | undefined,
  call: (timeoutMs: number | undefined) => Promise<T>,
): Promise<T> {
  const deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
  for (let tries = 1; ; tries++) {
    try {
      return await call(deadline === undefined ? undefined : Math.max(0, deadline - Date.now()));
    } catch (error) {
      if (!(error instanceof UnavailableError) || tries >= p.attempts || signal?.aborted) throw error;
      const wait = backoffMs(p, tries);
      if (deadline !== undefined && Date.now() + wait >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
