/**
 * `ThreadsClient`: the server's thread records, as `client.threads`.
 *
 * Every thread has a record beside its versions: its graph, a metadata
 * object, when it was created and last updated, its status (idle, busy,
 * interrupted with its pending interrupts, error) and its TTL. The first run
 * on an unknown thread creates it; `create` makes one before any run.
 * Searches filter by metadata (containment), status, graph, ids and times,
 * and page by token. With per-tenant tokens, each tenant sees only its own.
 *
 * @module
 */

import { create } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";

import { decoded, type Decoder } from "./_decode.js";
import type { Encoder } from "./_requests.js";
import type { CallOptions, Transport } from "./_transport.js";
import * as pb from "./gen/graphwire/v1/graphwire_pb.js";
import type { ErrorInfo, Interrupt } from "./types.js";

/** Where a thread is. */
export type ThreadStatus = "idle" | "busy" | "interrupted" | "error" | "unspecified";
/** What happens to a thread once it expires: deleted, or pruned to its newest version. */
export type TtlStrategy = "delete" | "keep_latest";

/** A thread's record. */
export interface Thread<V = Record<string, unknown>> {
  threadId: string;
  graph: string;
  metadata: Record<string, unknown>;
  createdAt: Date | null;
  updatedAt: Date | null;
  status: ThreadStatus;
  /** Pending when `status` is "interrupted". */
  interrupts: Interrupt[];
  /** Its newest values, when asked for (`includeValues`); null otherwise. */
  values: V | null;
  /** Seconds after `updatedAt` at which it expires, and what then; null when it never expires. */
  ttl: { seconds: number; strategy: TtlStrategy } | null;
  expiresAt: Date | null;
  /** The error its last run ended with, when `status` is "error"; null otherwise. */
  error: ErrorInfo | null;
}

/** A page of a search: pass `nextPageToken` as `pageToken` for the next one (null: the last page). */
export interface ThreadPage<V = Record<string, unknown>> {
  threads: Thread<V>[];
  nextPageToken: string | null;
}

/** Options of `create`. */
export interface CreateThreadOptions extends CallOptions {
  /** The thread's id; omitted: the server makes one. */
  threadId?: string | undefined;
  /** Its metadata (named so: `metadata` is the call's gRPC metadata, as in every call's options). */
  threadMetadata?: Record<string, unknown> | undefined;
  /** "raise" (AlreadyExistsError, the default) or "do_nothing" (the existing thread). */
  ifExists?: "raise" | "do_nothing" | undefined;
  /** Seconds after its last update at which it expires; omitted: the graph's default. */
  ttl?: number | undefined;
  ttlStrategy?: TtlStrategy | undefined;
}

/** Options of `update`. */
export interface UpdateThreadOptions extends CallOptions {
  /** Merged into the thread's metadata: each top-level key replaces the thread's. */
  threadMetadata?: Record<string, unknown> | undefined;
  /** A new TTL in seconds (0: it no longer expires); omitted: as it is. */
  ttl?: number | undefined;
  ttlStrategy?: TtlStrategy | undefined;
}

/** Which threads a search or a count reads: every condition given must hold. */
export interface ThreadFilterOptions extends CallOptions {
  graph?: string | undefined;
  /** Contained in the thread's metadata (as PostgreSQL's jsonb `@>`). */
  threadMetadata?: Record<string, unknown> | undefined;
  status?: ThreadStatus | ThreadStatus[] | undefined;
  threadIds?: readonly string[] | undefined;
  createdAfter?: Date | undefined;
  createdBefore?: Date | undefined;
  updatedAfter?: Date | undefined;
  updatedBefore?: Date | undefined;
}

/** Options of `search`. */
export interface SearchThreadsOptions extends ThreadFilterOptions {
  sortBy?: "created_at" | "updated_at" | undefined;
  sortOrder?: "desc" | "asc" | undefined;
  /** 1 to 1000; omitted: 20. */
  limit?: number | undefined;
  pageToken?: string | undefined;
  includeValues?: boolean | undefined;
}

const STATUSES: ReadonlyMap<string, pb.ThreadStatus> = new Map([
  ["idle", pb.ThreadStatus.IDLE],
  ["busy", pb.ThreadStatus.BUSY],
  ["interrupted", pb.ThreadStatus.INTERRUPTED],
  ["error", pb.ThreadStatus.ERROR],
]);
const STATUS_NAMES: ReadonlyMap<pb.ThreadStatus, ThreadStatus> = new Map(
  [...STATUSES].map(([k, v]) => [v, k as ThreadStatus]),
);

function ttlOf(seconds: number | undefined, strategy: TtlStrategy | undefined): pb.ThreadTtl | undefined {
  if (seconds === undefined) return undefined;
  if (strategy !== undefined && strategy !== "delete" && strategy !== "keep_latest") {
    throw new TypeError(`a thread's ttl strategy is "delete" or "keep_latest", not ${JSON.stringify(strategy)}`);
  }
  return create(pb.ThreadTtlSchema, {
    seconds,
    strategy: strategy === "keep_latest" ? pb.TtlStrategy.KEEP_LATEST : pb.TtlStrategy.DELETE,
  });
}

/**
 * The thread RPCs of one `Client`: `client.threads`.
 *
 * ```ts
 * const t = await client.threads.create("agent", { threadMetadata: { user: "u1" } });
 * const page = await client.threads.search({ threadMetadata: { user: "u1" }, status: "interrupted" });
 * ```
 */
export class ThreadsClient {
  readonly #transport: Transport;
  readonly #encode: Encoder;
  readonly #decode: Decoder;

  /** @internal `Client` makes it; use `client.threads`. */
  constructor(transport: Transport, encode: Encoder, decode: Decoder) {
    this.#transport = transport;
    this.#encode = encode;
    this.#decode = decode;
  }

  #metadata(metadata: Record<string, unknown> | undefined): string {
    if (metadata === undefined) return "";
    if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) {
      throw new TypeError("a thread's metadata is an object (a JSON object)");
    }
    return this.#encode.jsonText(metadata);
  }

  #thread<V>(m: pb.ThreadInfo): Thread<V> {
    return {
      threadId: m.threadId,
      graph: m.graph,
      metadata: (m.metadataJson ? this.#decode.fromJson(m.metadataJson) : {}) as Record<string, unknown>,
      createdAt: m.createdAt ? timestampDate(m.createdAt) : null,
      updatedAt: m.updatedAt ? timestampDate(m.updatedAt) : null,
      status: STATUS_NAMES.get(m.status) ?? "unspecified",
      interrupts: m.interrupts.map((i) => this.#decode.interrupt(i)),
      values: m.valuesJson ? (this.#decode.fromJson(m.valuesJson) as V) : null,
      ttl: m.ttl
        ? { seconds: m.ttl.seconds, strategy: m.ttl.strategy === pb.TtlStrategy.KEEP_LATEST ? "keep_latest" : "delete" }
        : null,
      expiresAt: m.expiresAt ? timestampDate(m.expiresAt) : null,
      error: this.#decode.errorInfo(m.error),
    };
  }

  #filter(o: ThreadFilterOptions): pb.ThreadFilter {
    const statuses = o.status === undefined ? [] : Array.isArray(o.status) ? o.status : [o.status];
    const filter = create(pb.ThreadFilterSchema, {
      graph: o.graph ?? "",
      metadataJson: this.#metadata(o.threadMetadata),
      statuses: statuses.map((s) => {
        const found = STATUSES.get(s);
        if (found === undefined)
          throw new TypeError(`thread statuses are idle, busy, interrupted, error; not ${JSON.stringify(s)}`);
        return found;
      }),
      threadIds: [...(o.threadIds ?? [])],
    });
    if (o.createdAfter) filter.createdAfter = timestampFromDate(o.createdAfter);
    if (o.createdBefore) filter.createdBefore = timestampFromDate(o.createdBefore);
    if (o.updatedAfter) filter.updatedAfter = timestampFromDate(o.updatedAfter);
    if (o.updatedBefore) filter.updatedBefore = timestampFromDate(o.updatedBefore);
    return filter;
  }

  /** Creates a thread's record (no version yet). */
  async create(graph: string, options: CreateThreadOptions = {}): Promise<Thread> {
    const request = create(pb.CreateThreadRequestSchema, {
      graph,
      threadId: options.threadId ?? "",
      metadataJson: this.#metadata(options.threadMetadata),
      ifExists: options.ifExists === "do_nothing" ? pb.IfExists.DO_NOTHING : pb.IfExists.RAISE,
      ttl: ttlOf(options.ttl, options.ttlStrategy),
    });
    const response = await this.#transport.unary(pb.GraphService.method.createThread, request, options);
    return decoded(() => this.#thread(response));
  }

  /** A thread's record (with its newest values when `includeValues`); NotFoundError when none. */
  async get<V = Record<string, unknown>>(
    graph: string,
    threadId: string,
    options: CallOptions & { includeValues?: boolean | undefined } = {},
  ): Promise<Thread<V>> {
    const request = create(pb.GetThreadRequestSchema, {
      graph,
      threadId,
      includeValues: options.includeValues ?? false,
    });
    const response = await this.#transport.unary(pb.GraphService.method.getThread, request, options);
    return decoded(() => this.#thread<V>(response));
  }

  /** Merges metadata into the thread's record, and sets its TTL. */
  async update(graph: string, threadId: string, options: UpdateThreadOptions = {}): Promise<Thread> {
    const request = create(pb.UpdateThreadRequestSchema, {
      graph,
      threadId,
      metadataJson: this.#metadata(options.threadMetadata),
      ttl: ttlOf(options.ttl, options.ttlStrategy),
    });
    const response = await this.#transport.unary(pb.GraphService.method.updateThread, request, options);
    return decoded(() => this.#thread(response));
  }

  /** One page of the threads matching the filter, in the order asked for. */
  async search<V = Record<string, unknown>>(options: SearchThreadsOptions = {}): Promise<ThreadPage<V>> {
    const request = create(pb.SearchThreadsRequestSchema, {
      filter: this.#filter(options),
      sortBy: options.sortBy === "updated_at" ? pb.ThreadSortBy.UPDATED_AT : pb.ThreadSortBy.CREATED_AT,
      sortOrder: options.sortOrder === "asc" ? pb.SortOrder.ASC : pb.SortOrder.DESC,
      limit: options.limit ?? 20,
      pageToken: options.pageToken ?? "",
      includeValues: options.includeValues ?? false,
    });
    const response = await this.#transport.unary(pb.GraphService.method.searchThreads, request, options);
    return decoded(() => ({
      threads: response.threads.map((t) => this.#thread<V>(t)),
      nextPageToken: response.nextPageToken || null,
    }));
  }

  /** How many threads match the filter. */
  async count(options: ThreadFilterOptions = {}): Promise<number> {
    const request = create(pb.CountThreadsRequestSchema, { filter: this.#filter(options) });
    const response = await this.#transport.unary(pb.GraphService.method.countThreads, request, options);
    return response.count;
  }

  /** A new thread with the same history and metadata (`newThreadId` omitted: the server makes one). */
  async copy(
    graph: string,
    threadId: string,
    options: CallOptions & { newThreadId?: string | undefined } = {},
  ): Promise<Thread> {
    const request = create(pb.CopyThreadRequestSchema, { graph, threadId, newThreadId: options.newThreadId ?? "" });
    const response = await this.#transport.unary(pb.GraphService.method.copyThread, request, options);
    return decoded(() => this.#thread(response));
  }

  /** Deletes the thread's older versions, keeping the newest `keepLast` (default 1); how many went. */
  async prune(
    graph: string,
    threadId: string,
    options: CallOptions & { keepLast?: number | undefined } = {},
  ): Promise<number> {
    const request = create(pb.PruneThreadRequestSchema, { graph, threadId, keepLast: options.keepLast ?? 1 });
    const response = await this.#transport.unary(pb.GraphService.method.pruneThread, request, options);
    return response.deleted;
  }

  /** Deletes the thread: its versions, runs and record. */
  async delete(graph: string, threadId: string, options: CallOptions = {}): Promise<void> {
    const request = create(pb.DeleteThreadRequestSchema, { graph, threadId });
    await this.#transport.unary(pb.GraphService.method.deleteThread, request, options);
  }
}
