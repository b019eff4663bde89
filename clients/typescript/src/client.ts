/**
 * `Client`: a connection to a graphwire server.
 *
 * Each method is one RPC of `graphwire.v1.GraphService`: `_requests` builds
 * the request, `_transport` makes the call, `_decode` reads the answer. Run
 * methods (`invoke`, `resume`, `fork`) return a `Run` at once; the others
 * return promises. Every method accepts `signal`, `timeoutMs` and
 * `metadata` (see `CallOptions`), and fails with a `GraphwireError`. The
 * store's methods are `client.store` (`store.ts`), the assistants'
 * `client.assistants` (`assistants.ts`).
 *
 * @module
 */

import { randomUUID } from "node:crypto";

import { fromBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import type * as grpc from "@grpc/grpc-js";

import { Decoder, decoded } from "./_decode.js";
import { Encoder, type RunSettings } from "./_requests.js";
import {
  DEFAULT_RETRY,
  policy,
  resilientStream,
  retryingUnary,
  type Policy,
  type Progress,
  type RetryPolicy,
} from "./_retry.js";
import { Transport, type CallOptions, type Method, type StreamSink } from "./_transport.js";
import { FailedPreconditionError, UnknownError } from "./errors.js";
import { GraphService, TurnRefusedSchema } from "./gen/graphwire/v1/graphwire_pb.js";
import type * as pb from "./gen/graphwire/v1/graphwire_pb.js";
import { standardJson, type JsonCodec } from "./json.js";
import { Run } from "./run.js";
import { AssistantsClient } from "./assistants.js";
import { StoreClient } from "./store.js";
import { ThreadsClient } from "./threads.js";
import type {
  CheckpointRef,
  EventKind,
  GraphInfo,
  RunInfo,
  RunPage,
  StateSnapshot,
  StateValues,
  TurnRefused,
} from "./types.js";

/** The trailing metadata key of a refused chat-safe turn (a serialized `graphwire.v1.TurnRefused`). */
const TURN_REFUSED_KEY = "graphwire-turn-refused-bin";

export type { CallOptions, RetryPolicy, RunSettings };

/** How to connect. */
export interface ClientOptions {
  /** Sent as `authorization: Bearer <token>` on every call. */
  token?: string | undefined;
  /**
   * false (default): plaintext. true: TLS with the system's root
   * certificates. A PEM string or bytes: TLS with these roots.
   */
  tls?: boolean | string | Uint8Array | undefined;
  /**
   * How payloads are read and written; default `standardJson`. Use
   * `bigIntJson` to keep integers beyond 2^53 exact (as `bigint`).
   */
  json?: JsonCodec | undefined;
  /**
   * grpc-js channel options, overriding the client's defaults (which accept
   * messages up to 64 MiB), e.g. `{"grpc.keepalive_time_ms": 30000}`.
   */
  channelOptions?: grpc.ChannelOptions | undefined;
  /**
   * How many connections to open (default 1). A call on a thread (its runs,
   * state, history, updates) takes the connection the thread's id names, so its
   * turns stay with one worker of `--workers N`; other calls take them in turn; a
   * stream keeps its connection for its life (a re-join may take another).
   * One connection carries any number of calls and is all one server process
   * needs; a server run with `--workers N` gives each connection to one worker,
   * so a client that alone carries a load opens a few times N to reach them all.
   */
  channels?: number | undefined;
  /**
   * How calls that fail with UNAVAILABLE are retried: by default 5 tries with backoff from
   * 200 ms, each run call and `updateState` carrying a new `requestId` so the server applies
   * it once; `false` turns retrying (and the generated ids) off. A call's `retry` overrides it.
   */
  retry?: RetryPolicy | boolean | undefined;
}

/** Options of `invoke`. */
export interface InvokeOptions extends RunSettings, CallOptions {
  /** Run from this older version instead of the newest, on a new branch. */
  checkpointId?: string | undefined;
}

/** Options of `resume`. */
export interface ResumeOptions extends RunSettings, CallOptions {
  /** Answers by `Interrupt.interruptId`, when several interrupts are pending (then pass `undefined` as the answer). */
  resumes?: Readonly<Record<string, unknown>> | undefined;
}

/** Options of `fork`. */
export interface ForkOptions extends RunSettings, CallOptions {
  /** A state update (an object of state keys) applied to the version before running; reducers apply. */
  update?: unknown;
  /** The node the update counts as coming from, which decides what runs next. */
  asNode?: string | undefined;
}

/** Options of `getState`. */
export interface GetStateOptions extends CallOptions {
  /** The version to read; omitted: the newest. */
  checkpointId?: string | undefined;
  /** Fill each subgraph task's `state` with its subgraph's own snapshot (nested). */
  subgraphs?: boolean | undefined;
  /** Read a subgraph's version instead (`TaskState.checkpointNs`, or an event's `namespace` joined with "|"). */
  checkpointNs?: string | undefined;
}

/** Options of `history`. */
export interface HistoryOptions extends CallOptions {
  /** The most versions to return; omitted or 0: all (up to the server's limit). */
  limit?: number | undefined;
  /** Only versions older than this one (for paging: the last id of the previous page). */
  before?: string | undefined;
  /** Only versions whose metadata has these keys with these values, e.g. `{source: "loop"}`. */
  filter?: Record<string, unknown> | undefined;
  /** List a subgraph's versions instead (as `GetStateOptions.checkpointNs`). */
  checkpointNs?: string | undefined;
}

/** Options of `joinRun`. */
export interface JoinRunOptions extends CallOptions {
  /** Send only the events after this `seq` (0, the default: every event from `run_started` on). */
  afterSeq?: number | undefined;
  /** As `RunSettings.eventKinds`, among the kinds the run's own caller asked for. */
  eventKinds?: readonly EventKind[] | undefined;
  /** As `RunSettings.retry`. */
  retry?: RetryPolicy | boolean | undefined;
}

/** Options of `listRuns`. */
export interface ListRunsOptions extends CallOptions {
  /** The most runs to return; omitted: all. */
  limit?: number | undefined;
  /** Only runs started before this one (for paging: the previous page's `nextBefore`, its last `runId`). */
  before?: string | undefined;
  /** With each run's final state (`RunInfo.values`), which the server otherwise does not read. */
  includeValues?: boolean | undefined;
}

/** Options of `updateState`. */
export interface UpdateStateOptions extends CallOptions {
  /** As `RunSettings.requestId`: a retry answers with the version the first attempt saved. */
  requestId?: string | undefined;
  /** As `RunSettings.retry`. */
  retry?: RetryPolicy | boolean | undefined;
  /** The node the update counts as coming from; omitted: the node that last wrote. */
  asNode?: string | undefined;
  /** The version to update; omitted: the newest. An older one starts a branch. */
  checkpointId?: string | undefined;
  /** As `RunSettings.configurable` (`asNode`'s routers read it; its plain values go into the new version's metadata). */
  configurable?: Record<string, unknown> | undefined;
}

/** Options of `cancel`. */
export interface CancelOptions extends CallOptions {
  /** Cancel only if the active run is this one, so that a late cancel cannot stop a later run. */
  runId?: string | undefined;
}

/**
 * A connection to a graphwire server.
 *
 * ```ts
 * const client = new Client("127.0.0.1:50051");
 * let result = await client.invoke("reminders", "thread-1", {messages: [{role: "user", content: "hi"}]}).result();
 * while (result.interrupted) {
 *   result = await client.resume("reminders", "thread-1", await ask(result.interrupts[0]!.value)).result();
 * }
 * client.close();
 * ```
 */
export class Client {
  /** The `host:port` this client calls. */
  readonly address: string;
  /** The server's store (long-term memory shared by threads): `client.store.putItem(...)`. */
  readonly store: StoreClient;
  /** The server's thread records (search, metadata, status, TTL): `client.threads.search(...)`. */
  readonly threads: ThreadsClient;
  /** The server's assistants (versioned configurations of its graphs): `client.assistants.create(...)`. */
  readonly assistants: AssistantsClient;
  readonly #transport: Transport;
  readonly #encode: Encoder;
  readonly #decode: Decoder;
  readonly #retry: Policy;

  constructor(address: string, options: ClientOptions = {}) {
    this.address = address;
    this.#retry = policy(options.retry, DEFAULT_RETRY);
    this.#transport = new Transport(address, options);
    const json = options.json ?? standardJson;
    this.#encode = new Encoder(json);
    this.#decode = new Decoder(json);
    this.store = new StoreClient(this.#transport, this.#encode, this.#decode);
    this.threads = new ThreadsClient(this.#transport, this.#encode, this.#decode);
    this.assistants = new AssistantsClient(this.#transport, this.#encode, this.#decode);
  }

  // -- runs -------------------------------------------------------------------

  /**
   * Runs `graph` on `threadId` with a new `input` (usually an object of state
   * keys; `null` continues the thread from its newest version, which after
   * an error retries the failed step). The thread is created by its first
   * run; threads are scoped to their graph.
   *
   * The returned `Run` ends however the run ends (END, INTERRUPT, ERROR,
   * ...); only a failed call is an error.
   */
  invoke<S = StateValues>(graph: string, threadId: string, input: unknown, options: InvokeOptions = {}): Run<S> {
    const request = this.#encode.invoke(graph, threadId, input, options);
    return this.#run<S, typeof pb.InvokeRequestSchema>(GraphService.method.invoke, request, threadId, options);
  }

  /**
   * Answers the thread's pending interrupt with `answer` (any JSON value;
   * `undefined` is sent as null), which `interrupt()` returns inside the
   * node; the node runs again from its first line. With several pending,
   * answer them by id: `resume(graph, threadId, undefined, {resumes: {[id]: answer}})`.
   * Fails with `FailedPreconditionError` when nothing is pending.
   */
  resume<S = StateValues>(graph: string, threadId: string, answer?: unknown, options: ResumeOptions = {}): Run<S> {
    const request = this.#encode.resume(graph, threadId, answer, options);
    return this.#run<S, typeof pb.ResumeRequestSchema>(GraphService.method.resume, request, threadId, options);
  }

  /**
   * Goes back to an older version and runs from there on a new branch; with
   * `update` (written as `asNode`), from that version with the update
   * applied. The old branch stays in the history; side effects are not undone.
   */
  fork<S = StateValues>(graph: string, threadId: string, checkpointId: string, options: ForkOptions = {}): Run<S> {
    const request = this.#encode.fork(graph, threadId, checkpointId, options);
    return this.#run<S, typeof pb.ForkRequestSchema>(GraphService.method.fork, request, threadId, options);
  }

  /**
   * Cancels the run active on a thread, from any connection. Its stream ends
   * with reason "CANCELLED"; saved versions stay. Resolves to false when
   * there was nothing to cancel.
   */
  async cancel(graph: string, threadId: string, options: CancelOptions = {}): Promise<boolean> {
    const request = this.#encode.cancelRun(graph, threadId, options.runId);
    const response = await this.#transport.unary(GraphService.method.cancelRun, request, options);
    return response.cancelled;
  }

  /**
   * Follows a run from any replica: its events after `afterSeq` (default 0: all of them), to
   * its `run_finished`. For a run started with a `requestId` (the default while retrying is
   * on), `onDisconnect: "continue"` or `background`, while it runs and for the server's
   * retention window after it ended. A dropped join is joined again from the last event
   * received; leaving one never cancels its run. The result's `threadId` is the one `run_started`
   * names, so it is empty when that event is not among those read (`afterSeq` > 0).
   */
  joinRun<S = StateValues>(runId: string, options: JoinRunOptions = {}): Run<S> {
    const afterSeq = options.afterSeq ?? 0;
    this.#encode.joinRun(runId, afterSeq, options.eventKinds); // bad arguments throw here
    const progress: Progress = { runId, seq: afterSeq, calls: 0 };
    const start = resilientStream(
      { start: null, join: this.#joiner(options.eventKinds, options) },
      policy(options.retry, this.#retry),
      {
        rejoin: true,
        timeoutMs: options.timeoutMs,
        signal: options.signal,
        progress,
      },
    );
    return new Run<S>("", this.#decode, start, progress);
  }

  /**
   * Why the server refused a chat-safe turn (`ifInterrupted: "reject"`, `expectCheckpointId`): the
   * thread's newest version and its pending interrupts, decoded from `error`'s trailing metadata with
   * this client's JSON codec. Null for any other error.
   */
  turnRefused(error: unknown): TurnRefused | null {
    if (!(error instanceof FailedPreconditionError)) return null;
    const data = error.metadata[TURN_REFUSED_KEY];
    if (!(data instanceof Uint8Array)) return null;
    return decoded(() => this.#decode.turnRefused(fromBinary(TurnRefusedSchema, data)));
  }

  /** A run's record (status, call, replica, attempts, outcome), from any replica. */
  async getRun(runId: string, options: CallOptions = {}): Promise<RunInfo> {
    const request = this.#encode.getRun(runId);
    const response = await this.#unary(GraphService.method.getRun, request, options, this.#retry);
    return decoded(() => this.#decode.runInfo(response));
  }

  /** A thread's runs, newest first, from the records of every replica. */
  async listRuns(graph: string, threadId: string, options: ListRunsOptions = {}): Promise<RunInfo[]> {
    return (await this.listRunsPage(graph, threadId, options)).runs;
  }

  /**
   * A page of a thread's runs (at most `limit`, newest first, after `before`), and where the next
   * one starts (`nextBefore`, null on the last). The server reads only the runs it returns, so
   * paging to the end reads each run once.
   */
  async listRunsPage(graph: string, threadId: string, options: ListRunsOptions = {}): Promise<RunPage> {
    const request = this.#encode.listRuns(graph, threadId, options);
    const response = await this.#unary(GraphService.method.listRuns, request, options, this.#retry);
    return decoded(() => this.#decode.runPage(response));
  }

  // -- threads ----------------------------------------------------------------

  /** A version of the thread: the newest, or `checkpointId`'s. `NotFoundError` for a thread with no version. */
  async getState<S = StateValues>(
    graph: string,
    threadId: string,
    options: GetStateOptions = {},
  ): Promise<StateSnapshot<S>> {
    const request = this.#encode.getState(graph, threadId, options.checkpointId, options);
    const response = await this.#unary(GraphService.method.getState, request, options, this.#retry);
    return decoded(() => this.#decode.stateSnapshot<S>(response));
  }

  /** The thread's versions, newest first, across all branches (follow `checkpoint.parentId` to walk one). */
  async history<S = StateValues>(
    graph: string,
    threadId: string,
    options: HistoryOptions = {},
  ): Promise<StateSnapshot<S>[]> {
    const request = this.#encode.listHistory(graph, threadId, options);
    const response = await this.#unary(GraphService.method.listHistory, request, options, this.#retry);
    return decoded(() => response.snapshots.map((s) => this.#decode.stateSnapshot<S>(s)));
  }

  /**
   * Saves a new version as if node `asNode` had returned `values`. Reducers
   * apply; nothing runs. From an older `checkpointId`, this starts a branch.
   */
  async updateState(
    graph: string,
    threadId: string,
    values: unknown,
    options: UpdateStateOptions = {},
  ): Promise<CheckpointRef> {
    const retry = policy(options.retry, this.#retry);
    const requestId = options.requestId ?? (retry.attempts > 1 ? randomUUID() : undefined);
    const request = this.#encode.updateState(graph, threadId, values, options, requestId);
    const response = await this.#unary(GraphService.method.updateState, request, options, retry);
    const checkpoint = response.checkpoint;
    if (checkpoint === undefined) throw new UnknownError("the server's UpdateState response names no checkpoint");
    return decoded(() => this.#decode.checkpointRef(checkpoint));
  }

  /** Deletes a thread with all its versions. `AbortedError` while it has a run. */
  async deleteThread(graph: string, threadId: string, options: CallOptions = {}): Promise<void> {
    const request = this.#encode.deleteThread(graph, threadId);
    await this.#transport.unary(GraphService.method.deleteThread, request, options);
  }

  // -- graphs -----------------------------------------------------------------

  /** The graphs the server runs, by name (without edges). */
  async graphs(options: CallOptions = {}): Promise<GraphInfo[]> {
    const response = await this.#unary(GraphService.method.listGraphs, this.#encode.listGraphs(), options, this.#retry);
    return decoded(() => response.graphs.map((g) => this.#decode.graphInfo(g)));
  }

  /** One graph with its nodes and edges, enough to draw it. */
  async graph(graph: string, options: CallOptions = {}): Promise<GraphInfo> {
    const response = await this.#unary(
      GraphService.method.getGraph,
      this.#encode.getGraph(graph),
      options,
      this.#retry,
    );
    return decoded(() => this.#decode.graphInfo(response));
  }

  // -- lifecycle --------------------------------------------------------------

  /** Closes the connection: no new calls; calls in progress finish. */
  close(): void {
    this.#transport.close();
  }

  // -- plumbing ---------------------------------------------------------------

  /** A run call as a `Run`: its `requestId` set, its retries and re-joins wired (`_retry.ts`). */
  #run<S, I extends DescMessage>(
    method: Method<I, typeof pb.RunEventSchema>,
    request: MessageShape<I> & (pb.InvokeRequest | pb.ResumeRequest | pb.ForkRequest),
    threadId: string,
    options: RunSettings & CallOptions,
  ): Run<S> {
    const retry = policy(options.retry, this.#retry);
    const requestId = options.requestId ?? (retry.attempts > 1 ? randomUUID() : undefined);
    this.#encode.durableFields(request, options, requestId);
    this.#encode.turnFields(request, options);
    const progress: Progress = { runId: null, seq: 0, calls: 0 };
    const start = resilientStream(
      {
        start: (sink, timeoutMs) => this.#transport.serverStream(method, request, { ...options, timeoutMs }, sink),
        join: this.#joiner(options.eventKinds, options),
      },
      retry,
      {
        rejoin: options.background === true || options.onDisconnect === "continue",
        timeoutMs: options.timeoutMs,
        signal: options.signal,
        progress,
        requestId,
      },
    );
    return new Run<S>(threadId, this.#decode, start, progress, requestId ?? null);
  }

  #joiner(eventKinds: readonly EventKind[] | undefined, options: CallOptions) {
    return (runId: string, afterSeq: number, sink: StreamSink<pb.RunEvent>, timeoutMs: number | undefined) =>
      this.#transport.serverStream(
        GraphService.method.joinRun,
        this.#encode.joinRun(runId, afterSeq, eventKinds),
        { ...options, timeoutMs },
        sink,
      );
  }

  #unary<I extends DescMessage, O extends DescMessage>(
    method: Method<I, O>,
    request: MessageShape<I>,
    options: CallOptions,
    retry: Policy,
  ): Promise<MessageShape<O>> {
    return retryingUnary(retry, options.timeoutMs, options.signal, (timeoutMs) =>
      this.#transport.unary(method, request, { ...options, timeoutMs }),
    );
  }
}
