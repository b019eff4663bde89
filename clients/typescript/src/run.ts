/**
 * A run in progress (`Run`) and how it ended (`RunResult`).
 *
 * `invoke`, `resume` and `fork` start the call at once and return a `Run`:
 * iterate it for the events as they happen, await `run.result()` for the
 * end, or both. Every event is kept (they make up `RunResult.events`), so an
 * iterator started late, or a second one, still sees the run from its first
 * event.
 *
 * Leaving a `for await` loop early only stops reading: the run goes on and
 * `result()` still resolves. To stop the run, abort the call's `signal` (or
 * call `client.cancel(graph, threadId)` from anywhere).
 *
 * A `Run` survives its connection: UNAVAILABLE before the first event is
 * retried with the call's `requestId`, and a run started with
 * `onDisconnect: "continue"` is re-joined (`JoinRun`) from `seq` after a
 * dropped stream, every event reaching the caller once, in order (see
 * `_retry.ts`).
 *
 * @module
 */

import type { Decoder } from "./_decode.js";
import type { Progress } from "./_retry.js";
import type { StreamSink } from "./_transport.js";
import { UnknownError, type GraphwireError } from "./errors.js";
import type { RunEvent, RunFinished } from "./events.js";
import type * as pb from "./gen/graphwire/v1/graphwire_pb.js";
import { FinishReason, type CheckpointRef, type ErrorInfo, type Interrupt, type StateValues } from "./types.js";

/**
 * How a run ended, with every event it streamed.
 *
 * A run whose node raised is a result too (`reason` is "ERROR" and `error`
 * says what), not an exception: the versions saved before the error stay,
 * and invoking again with no input retries the failed step.
 */
export interface RunResult<S = StateValues> {
  runId: string;
  threadId: string;
  /** Why it ended. */
  reason: FinishReason;
  /** True when the run stopped to wait for an answer (`resume` continues it). */
  interrupted: boolean;
  /**
   * The thread's state at `checkpoint`; null when the thread has no version, or when
   * the state is too large for one message (only on a server whose `max_state_bytes`
   * was raised).
   */
  values: S | null;
  /** The thread's newest version when the run ended. */
  checkpoint: CheckpointRef | null;
  /** The pending questions when `reason` is "INTERRUPT". */
  interrupts: Interrupt[];
  /** What went wrong when `reason` is "ERROR" or "RECURSION_LIMIT". */
  error: ErrorInfo | null;
  /** Every event received, in order; the `run_finished` event is last. */
  events: RunEvent<S>[];
}

/** Starts the call, sending its messages to the sink; returns a way to cancel it. */
export type StartCall = (sink: StreamSink<pb.RunEvent>) => { cancel(): void };

/**
 * A run being streamed: an async iterable of its events that also has
 * `result()`. Failed calls throw a `GraphwireError` from the iterator and
 * reject `result()`.
 */
export class Run<S = StateValues> implements AsyncIterable<RunEvent<S>> {
  /** The thread the run is on. */
  readonly threadId: string;
  /** The id sent with each attempt of the call; null when it had none. */
  readonly requestId: string | null;

  readonly #events: RunEvent<S>[] = [];
  readonly #result: Promise<RunResult<S>>;
  #finished: RunFinished<S> | null = null;
  #failure: GraphwireError | null = null;
  #ended = false;
  #waiting: (() => void)[] = [];
  #settle!: { resolve(result: RunResult<S>): void; reject(error: GraphwireError): void };
  readonly #progress: Progress;

  /** @internal Made by the client; not constructed by callers. */
  constructor(
    threadId: string,
    decoder: Decoder,
    start: StartCall,
    progress: Progress = { runId: null, seq: 0, calls: 0 },
    requestId: string | null = null,
  ) {
    this.threadId = threadId;
    this.requestId = requestId;
    this.#progress = progress;
    this.#result = new Promise<RunResult<S>>((resolve, reject) => {
      this.#settle = { resolve, reject };
    });
    // Whoever wants the outcome calls result(); a caller that only iterates
    // sees failures there, so an unobserved rejection is not an error.
    this.#result.catch(() => {});
    const call = start({
      message: (message) => {
        if (this.#ended) return;
        let event: RunEvent<S> | null;
        try {
          event = decoder.event<S>(message);
        } catch (cause) {
          call.cancel();
          this.#fail(new UnknownError(`could not decode an event from the server: ${String(cause)}`, { cause }));
          return;
        }
        if (event === null) return; // a kind from a newer server: skip it
        this.#events.push(event);
        if (event.kind === "run_finished") this.#finished = event;
        this.#wake();
      },
      error: (error) => this.#fail(error),
      end: () => this.#end(),
    });
  }

  /** The run's id, once its first event arrived (null before). */
  get runId(): string | null {
    return this.#progress.runId;
  }

  /** The `seq` of the last event received (0 before any): where `client.joinRun(run.runId, {afterSeq})` goes on. */
  get seq(): number {
    return this.#progress.seq;
  }

  /** The gRPC calls made so far: 1, plus one per retry or re-join. */
  get calls(): number {
    return this.#progress.calls;
  }

  /** How the run ended, once it has. Rejects with the `GraphwireError` of a failed call. */
  result(): Promise<RunResult<S>> {
    return this.#result;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<RunEvent<S>, void, undefined> {
    let next = 0;
    for (;;) {
      const event = this.#events[next];
      if (event !== undefined) {
        next++;
        yield event;
        continue;
      }
      if (this.#failure !== null) throw this.#failure;
      if (this.#ended) return;
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
  }

  #wake(): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resolve of waiting) resolve();
  }

  #fail(error: GraphwireError): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#failure = error;
    this.#settle.reject(error);
    this.#wake();
  }

  #end(): void {
    const finished = this.#finished;
    if (finished === null) {
      this.#fail(
        new UnknownError(
          `the run's stream ended after ${this.#events.length} event(s) without a run_finished event` +
            " (a background call ends after run_started: follow its run with client.joinRun(run.runId))",
        ),
      );
      return;
    }
    this.#ended = true;
    const started = this.#events.find((e) => e.kind === "run_started");
    this.#settle.resolve({
      runId: finished.runId,
      threadId: (started?.kind === "run_started" && started.threadId) || this.threadId,
      reason: finished.reason,
      interrupted: finished.reason === FinishReason.INTERRUPT,
      values: finished.values,
      checkpoint: finished.checkpoint,
      interrupts: finished.interrupts,
      error: finished.error,
      events: [...this.#events],
    });
    this.#wake();
  }
}
