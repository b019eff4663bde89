/**
 * `Client`: a connection to a graphwire server.
 *
 * Each method is one RPC of `graphwire.v1.GraphService`: `_requests` builds
 * the request, `_transport` makes the call, `_decode` reads the answer. Run
 * methods (`invoke`, `resume`, `fork`) return a `Run` at once; the others
 * return promises. Every method accepts `signal`, `timeoutMs` and
 * `metadata` (see `CallOptions`), and fails with a `GraphwireError`. The
 * store's methods are `client.store` (`store.ts`).
 *
 * @module
 */

import type * as grpc from "@grpc/grpc-js";

import { Decoder, decoded } from "./_decode.js";
import { Encoder, type RunSettings } from "./_requests.js";
import { Transport, type CallOptions } from "./_transport.js";
import { UnknownError } from "./errors.js";
import { GraphService } from "./gen/graphwire/v1/graphwire_pb.js";
import { standardJson, type JsonCodec } from "./json.js";
import { Run } from "./run.js";
import { StoreClient } from "./store.js";
import type { CheckpointRef, GraphInfo, StateSnapshot, StateValues } from "./types.js";

export type { CallOptions, RunSettings };

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

/** Options of `updateState`. */
export interface UpdateStateOptions extends CallOptions {
  /** The node the update counts as coming from; omitted: the node that last wrote. */
  asNode?: string | undefined;
  /** The version to update; omitted: the newest. An older one starts a branch. */
  checkpointId?: string | undefined;
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
  readonly #transport: Transport;
  readonly #encode: Encoder;
  readonly #decode: Decoder;

  constructor(address: string, options: ClientOptions = {}) {
    this.address = address;
    this.#transport = new Transport(address, options);
    const json = options.json ?? standardJson;
    this.#encode = new Encoder(json);
    this.#decode = new Decoder(json);
    this.store = new StoreClient(this.#transport, this.#encode, this.#decode);
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
    return new Run<S>(threadId, this.#decode, (sink) =>
      this.#transport.serverStream(GraphService.method.invoke, request, options, sink),
    );
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
    return new Run<S>(threadId, this.#decode, (sink) =>
      this.#transport.serverStream(GraphService.method.resume, request, options, sink),
    );
  }

  /**
   * Goes back to an older version and runs from there on a new branch; with
   * `update` (written as `asNode`), from that version with the update
   * applied. The old branch stays in the history; side effects are not undone.
   */
  fork<S = StateValues>(graph: string, threadId: string, checkpointId: string, options: ForkOptions = {}): Run<S> {
    const request = this.#encode.fork(graph, threadId, checkpointId, options);
    return new Run<S>(threadId, this.#decode, (sink) =>
      this.#transport.serverStream(GraphService.method.fork, request, options, sink),
    );
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

  // -- threads ----------------------------------------------------------------

  /** A version of the thread: the newest, or `checkpointId`'s. `NotFoundError` for a thread with no version. */
  async getState<S = StateValues>(
    graph: string,
    threadId: string,
    options: GetStateOptions = {},
  ): Promise<StateSnapshot<S>> {
    const request = this.#encode.getState(graph, threadId, options.checkpointId, options);
    const response = await this.#transport.unary(GraphService.method.getState, request, options);
    return decoded(() => this.#decode.stateSnapshot<S>(response));
  }

  /** The thread's versions, newest first, across all branches (follow `checkpoint.parentId` to walk one). */
  async history<S = StateValues>(
    graph: string,
    threadId: string,
    options: HistoryOptions = {},
  ): Promise<StateSnapshot<S>[]> {
    const request = this.#encode.listHistory(graph, threadId, options);
    const response = await this.#transport.unary(GraphService.method.listHistory, request, options);
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
    const request = this.#encode.updateState(graph, threadId, values, options);
    const response = await this.#transport.unary(GraphService.method.updateState, request, options);
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
    const response = await this.#transport.unary(GraphService.method.listGraphs, this.#encode.listGraphs(), options);
    return decoded(() => response.graphs.map((g) => this.#decode.graphInfo(g)));
  }

  /** One graph with its nodes and edges, enough to draw it. */
  async graph(graph: string, options: CallOptions = {}): Promise<GraphInfo> {
    const response = await this.#transport.unary(GraphService.method.getGraph, this.#encode.getGraph(graph), options);
    return decoded(() => this.#decode.graphInfo(response));
  }

  // -- lifecycle --------------------------------------------------------------

  /** Closes the connection: no new calls; calls in progress finish. */
  close(): void {
    this.#transport.close();
  }
}
