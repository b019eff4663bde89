/**
 * The client's arguments → request messages. Pure; no I/O.
 *
 * Values are JSON-encoded here, so a value the codec cannot carry fails with
 * a `TypeError` before anything is sent.
 *
 * @internal
 */

import { create } from "@bufbuild/protobuf";

import * as pb from "./gen/graphwire/v1/graphwire_pb.js";
import type { JsonCodec } from "./json.js";
import type { RetryPolicy } from "./_retry.js";
import { Durability, EventKind, IfInterrupted, MultitaskStrategy, OnDisconnect } from "./types.js";

const EVENT_KINDS: ReadonlyMap<string, pb.EventKind> = new Map([
  [EventKind.RUN_STARTED, pb.EventKind.RUN_STARTED],
  [EventKind.STEP_STARTED, pb.EventKind.STEP_STARTED],
  [EventKind.STEP_FINISHED, pb.EventKind.STEP_FINISHED],
  [EventKind.TASK_STARTED, pb.EventKind.TASK_STARTED],
  [EventKind.TASK_FINISHED, pb.EventKind.TASK_FINISHED],
  [EventKind.VALUES, pb.EventKind.VALUES],
  [EventKind.CUSTOM, pb.EventKind.CUSTOM],
  [EventKind.MESSAGE_CHUNK, pb.EventKind.MESSAGE_CHUNK],
  [EventKind.CHECKPOINT_SAVED, pb.EventKind.CHECKPOINT_SAVED],
  [EventKind.INTERRUPT, pb.EventKind.INTERRUPT],
  [EventKind.RUN_FINISHED, pb.EventKind.RUN_FINISHED],
]);

const DURABILITIES: ReadonlyMap<string, pb.Durability> = new Map([
  [Durability.ASYNC, pb.Durability.ASYNC],
  [Durability.SYNC, pb.Durability.SYNC],
  [Durability.EXIT, pb.Durability.EXIT],
]);

/** Settings shared by every run-starting call (`invoke`, `resume`, `fork`). */
export interface RunSettings {
  /**
   * The event kinds to receive, e.g. `["message_chunk", "interrupt"]`;
   * omitted: all of them. `run_started` and `run_finished` always come.
   */
  eventKinds?: readonly EventKind[] | undefined;
  /** If the thread is busy, wait for its run instead of failing with `AbortedError`. */
  enqueue?: boolean | undefined;
  /** The most supersteps the run may take. */
  recursionLimit?: number | undefined;
  /** When versions are written: "async" (default), "sync" or "exit". */
  durability?: Durability | undefined;
  /** A JSON object stored in the metadata of every version the run saves (`history({filter})` finds them). */
  runMetadata?: Record<string, unknown> | undefined;
  /** Nodes to pause before, replacing the graph's own breakpoints ("*": all). */
  interruptBefore?: readonly string[] | undefined;
  /** Nodes to pause after, replacing the graph's own breakpoints ("*": all). */
  interruptAfter?: readonly string[] | undefined;
  /**
   * The run's context, e.g. `{ user_id: "u1", locale: "fr" }`: what the graph's nodes read as
   * `runtime.context`, checked against its `context_schema` (`InvalidArgumentError` naming a
   * bad field). Not stored in the thread's state.
   */
  context?: Record<string, unknown> | undefined;
  /**
   * The run's `configurable`, e.g. `{ model: "small", user_id: "u1" }`: what LangGraph's
   * `config: { configurable }` passes; nodes, tools and chat models read it from their
   * `config["configurable"]`, beside the thread id. `thread_id`, `checkpoint_id`,
   * `checkpoint_ns`, `checkpoint_map` and keys starting with `__` are the service's
   * (`InvalidArgumentError` naming the key).
   */
  configurable?: Record<string, unknown> | undefined;
  /**
   * The id of this logical call, sent with each of its retries so the server applies it
   * once. Omitted: a new UUID per call while retrying is on (none when it is off).
   */
  requestId?: string | undefined;
  /**
   * What the run does when the caller's stream drops: "cancel" (the server's default) or
   * "continue", with which the client re-joins the run after a dropped connection and the
   * caller sees each event once, in order.
   */
  onDisconnect?: OnDisconnect | undefined;
  /** The call ends right after `run_started`; the run goes on with no caller (follow it with `joinRun`, `getRun`). */
  background?: boolean | undefined;
  /** How UNAVAILABLE is retried for this call: `false` not at all; omitted: the client's policy. */
  retry?: RetryPolicy | boolean | undefined;
  /**
   * What to do when the thread already has a run: "reject" (`AbortedError`), "enqueue" (wait; as
   * `enqueue: true`), "interrupt" (cancel it, keep its versions, run) or "rollback" (cancel it,
   * delete its versions, run). Omitted: `enqueue` decides.
   */
  multitaskStrategy?: MultitaskStrategy | undefined;
  /**
   * Run only if the thread's newest version is this one (the one the caller displayed); else
   * `FailedPreconditionError`, whose `client.turnRefused(error)` names the newest.
   */
  expectCheckpointId?: string | undefined;
  /**
   * `invoke` only: "reject" refuses a thread waiting at an interrupt (`FailedPreconditionError`;
   * `client.turnRefused(error).interrupts`) instead of dropping it ("drop", the server's default).
   */
  ifInterrupted?: IfInterrupted | undefined;
  /**
   * Run as this assistant (`client.assistants`): its graph, with its config and context as this
   * call's defaults (this call's `configurable`, `context` and `recursionLimit` win, key by key),
   * and its id in the metadata of the versions the run saves. The `graph` argument may then be
   * `""` (or must be the assistant's graph). A graph's name stands for its default assistant.
   */
  assistantId?: string | undefined;
}

const STRATEGIES: ReadonlyMap<string, pb.MultitaskStrategy> = new Map([
  [MultitaskStrategy.REJECT, pb.MultitaskStrategy.REJECT],
  [MultitaskStrategy.ENQUEUE, pb.MultitaskStrategy.ENQUEUE],
  [MultitaskStrategy.INTERRUPT, pb.MultitaskStrategy.INTERRUPT],
  [MultitaskStrategy.ROLLBACK, pb.MultitaskStrategy.ROLLBACK],
]);

const IF_INTERRUPTED: ReadonlyMap<string, pb.IfInterrupted> = new Map([
  [IfInterrupted.DROP, pb.IfInterrupted.DROP],
  [IfInterrupted.REJECT, pb.IfInterrupted.REJECT],
]);

type RunRequest = pb.InvokeRequest | pb.ResumeRequest | pb.ForkRequest;

/** What an assistant's create or update may set. */
interface AssistantFields {
  name?: string | undefined;
  description?: string | undefined;
  config?: object | undefined;
  context?: object | undefined;
  metadata?: object | undefined;
}

/** What a search or a count of assistants filters by. */
interface AssistantFilter {
  graph?: string | undefined;
  name?: string | undefined;
  metadata?: object | undefined;
}

/** A page of a listing. */
interface AssistantPage {
  metadata?: object | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
}

const IF_EXISTS: ReadonlyMap<string, pb.IfExists> = new Map([
  ["raise", pb.IfExists.RAISE],
  ["do_nothing", pb.IfExists.DO_NOTHING],
]);

const SORT_BY: ReadonlyMap<string, pb.AssistantSortBy> = new Map([
  ["assistant_id", pb.AssistantSortBy.ASSISTANT_ID],
  ["graph", pb.AssistantSortBy.GRAPH],
  ["graph_id", pb.AssistantSortBy.GRAPH],
  ["name", pb.AssistantSortBy.NAME],
  ["created_at", pb.AssistantSortBy.CREATED_AT],
  ["updated_at", pb.AssistantSortBy.UPDATED_AT],
]);

export class Encoder {
  constructor(private readonly json: JsonCodec) {}

  /** `value` as one JSON text, for a `*Json` field. */
  jsonText(value: unknown): string {
    return this.json.stringify(value);
  }

  /** `undefined` and `null` mean "no value": the field stays empty. */
  optionalJsonText(value: unknown): string {
    return value === undefined || value === null ? "" : this.jsonText(value);
  }

  eventKinds(names: readonly string[] | undefined): pb.EventKind[] {
    if (names === undefined) return [];
    const kinds = new Set<pb.EventKind>();
    for (const name of names) {
      const kind = EVENT_KINDS.get(name);
      if (kind === undefined) {
        throw new TypeError(
          `unknown event kind ${JSON.stringify(name)}; use one of: ${[...EVENT_KINDS.keys()].join(", ")}`,
        );
      }
      kinds.add(kind);
    }
    return [...kinds].sort((a, b) => a - b);
  }

  /** Sets what a run request says about retries and its caller leaving. */
  durableFields(request: RunRequest, s: RunSettings, requestId: string | undefined): void {
    if (requestId !== undefined) request.requestId = requestId;
    if (s.onDisconnect !== undefined) {
      if (s.onDisconnect === OnDisconnect.CONTINUE) request.onDisconnect = pb.OnDisconnect.CONTINUE;
      else if (s.onDisconnect === OnDisconnect.CANCEL) request.onDisconnect = pb.OnDisconnect.CANCEL;
      else throw new TypeError(`unknown onDisconnect ${JSON.stringify(s.onDisconnect)}; use "cancel" or "continue"`);
    }
    if (s.background) request.background = true;
  }

  /** Sets what a run request asks of a busy thread and of the version it runs on. */
  turnFields(request: RunRequest, s: RunSettings): void {
    if (s.multitaskStrategy !== undefined) {
      const strategy = STRATEGIES.get(s.multitaskStrategy);
      if (strategy === undefined) {
        throw new TypeError(
          `unknown multitaskStrategy ${JSON.stringify(s.multitaskStrategy)}; use one of: ${[...STRATEGIES.keys()].join(", ")}`,
        );
      }
      request.multitaskStrategy = strategy;
    }
    if (s.expectCheckpointId) request.expectCheckpointId = s.expectCheckpointId;
    if (s.ifInterrupted !== undefined) {
      const kind = IF_INTERRUPTED.get(s.ifInterrupted);
      if (kind === undefined)
        throw new TypeError(`unknown ifInterrupted ${JSON.stringify(s.ifInterrupted)}; use "drop" or "reject"`);
      if (request.$typeName !== "graphwire.v1.InvokeRequest") {
        throw new TypeError("ifInterrupted is an invoke option (resume answers the interrupt; fork names its version)");
      }
      request.ifInterrupted = kind;
    }
  }

  joinRun(runId: string, afterSeq: number, eventKinds: readonly EventKind[] | undefined): pb.JoinRunRequest {
    if (runId === "") throw new TypeError("runId is empty: name the run to join (run.runId, an event's runId)");
    return create(pb.JoinRunRequestSchema, {
      runId,
      afterSeq: uint32("afterSeq", afterSeq),
      eventKinds: this.eventKinds(eventKinds),
    });
  }

  getRun(runId: string): pb.GetRunRequest {
    return create(pb.GetRunRequestSchema, { runId });
  }

  listRuns(
    graph: string,
    threadId: string,
    o: { limit?: number | undefined; before?: string | undefined; includeValues?: boolean | undefined },
  ): pb.ListRunsRequest {
    const request = create(pb.ListRunsRequestSchema, { graph, threadId, includeValues: o.includeValues ?? false });
    if (o.limit !== undefined) request.limit = uint32("limit", o.limit);
    if (o.before !== undefined) request.before = o.before;
    return request;
  }

  runConfig(s: RunSettings): pb.RunConfig | undefined {
    const config = create(pb.RunConfigSchema, {
      interruptBefore: [...(s.interruptBefore ?? [])],
      interruptAfter: [...(s.interruptAfter ?? [])],
    });
    let set = config.interruptBefore.length > 0 || config.interruptAfter.length > 0;
    if (s.recursionLimit !== undefined) {
      if (!Number.isInteger(s.recursionLimit) || s.recursionLimit < 0 || s.recursionLimit > 0xffffffff) {
        throw new RangeError(`recursionLimit must be an integer from 0 to 2^32 - 1, not ${s.recursionLimit}`);
      }
      config.recursionLimit = s.recursionLimit;
      set = true;
    }
    if (s.durability !== undefined) {
      const durability = DURABILITIES.get(s.durability);
      if (durability === undefined) {
        throw new TypeError(`unknown durability ${JSON.stringify(s.durability)}; use "async", "sync" or "exit"`);
      }
      config.durability = durability;
      set = true;
    }
    if (s.runMetadata !== undefined) {
      config.metadataJson = this.jsonText(s.runMetadata);
      set = true;
    }
    if (s.context !== undefined) {
      config.contextJson = this.jsonText(s.context);
      set = true;
    }
    if (s.configurable !== undefined) {
      config.configurableJson = this.jsonText(s.configurable);
      set = true;
    }
    return set ? config : undefined;
  }

  invoke(
    graph: string,
    threadId: string,
    input: unknown,
    s: RunSettings & { checkpointId?: string | undefined },
  ): pb.InvokeRequest {
    const request = create(pb.InvokeRequestSchema, {
      graph,
      threadId,
      eventKinds: this.eventKinds(s.eventKinds),
      enqueue: s.enqueue ?? false,
    });
    request.inputJson = this.optionalJsonText(input);
    if (s.checkpointId !== undefined) request.checkpointId = s.checkpointId;
    if (s.assistantId !== undefined) request.assistantId = s.assistantId;
    const config = this.runConfig(s);
    if (config !== undefined) request.config = config;
    return request;
  }

  /** `answer` is sent (undefined as JSON null) unless `resumes` is given. */
  resume(
    graph: string,
    threadId: string,
    answer: unknown,
    s: RunSettings & { resumes?: Readonly<Record<string, unknown>> | undefined },
  ): pb.ResumeRequest {
    const request = create(pb.ResumeRequestSchema, {
      graph,
      threadId,
      eventKinds: this.eventKinds(s.eventKinds),
      enqueue: s.enqueue ?? false,
    });
    if (s.resumes !== undefined) {
      if (answer !== undefined) {
        throw new TypeError("pass either an answer or `resumes: {[interruptId]: answer}`, not both");
      }
      const entries = Object.entries(s.resumes);
      if (entries.length === 0) throw new TypeError("`resumes` is empty: name at least one interrupt id");
      for (const [id, value] of entries) request.resumesJson[id] = this.jsonText(value ?? null);
    } else {
      request.resumeJson = this.jsonText(answer ?? null);
    }
    if (s.assistantId !== undefined) request.assistantId = s.assistantId;
    const config = this.runConfig(s);
    if (config !== undefined) request.config = config;
    return request;
  }

  fork(
    graph: string,
    threadId: string,
    checkpointId: string,
    s: RunSettings & { update?: unknown; asNode?: string | undefined },
  ): pb.ForkRequest {
    const request = create(pb.ForkRequestSchema, {
      graph,
      threadId,
      checkpointId,
      eventKinds: this.eventKinds(s.eventKinds),
      enqueue: s.enqueue ?? false,
    });
    request.updateJson = this.optionalJsonText(s.update);
    if (s.asNode !== undefined) request.asNode = s.asNode;
    if (s.assistantId !== undefined) request.assistantId = s.assistantId;
    const config = this.runConfig(s);
    if (config !== undefined) request.config = config;
    return request;
  }

  getState(
    graph: string,
    threadId: string,
    checkpointId: string | undefined,
    o: { subgraphs?: boolean | undefined; checkpointNs?: string | undefined } = {},
  ): pb.GetStateRequest {
    const request = create(pb.GetStateRequestSchema, { graph, threadId });
    if (checkpointId !== undefined) request.checkpointId = checkpointId;
    if (o.subgraphs) request.subgraphs = true;
    if (o.checkpointNs !== undefined) request.checkpointNs = o.checkpointNs;
    return request;
  }

  listHistory(
    graph: string,
    threadId: string,
    o: {
      limit?: number | undefined;
      before?: string | undefined;
      filter?: Record<string, unknown> | undefined;
      checkpointNs?: string | undefined;
    },
  ): pb.ListHistoryRequest {
    const request = create(pb.ListHistoryRequestSchema, { graph, threadId });
    if (o.checkpointNs !== undefined) request.checkpointNs = o.checkpointNs;
    if (o.limit !== undefined) request.limit = uint32("limit", o.limit);
    if (o.before !== undefined) request.before = o.before;
    if (o.filter !== undefined) request.filterJson = this.jsonText(o.filter);
    return request;
  }

  updateState(
    graph: string,
    threadId: string,
    values: unknown,
    o: {
      asNode?: string | undefined;
      checkpointId?: string | undefined;
      configurable?: Record<string, unknown> | undefined;
    },
    requestId?: string,
  ): pb.UpdateStateRequest {
    const request = create(pb.UpdateStateRequestSchema, { graph, threadId, valuesJson: this.jsonText(values) });
    if (requestId !== undefined) request.requestId = requestId;
    if (o.asNode !== undefined) request.asNode = o.asNode;
    if (o.checkpointId !== undefined) request.checkpointId = o.checkpointId;
    if (o.configurable !== undefined) request.configurableJson = this.jsonText(o.configurable);
    return request;
  }

  cancelRun(graph: string, threadId: string, runId: string | undefined): pb.CancelRunRequest {
    return create(pb.CancelRunRequestSchema, { graph, threadId, runId: runId ?? "" });
  }

  deleteThread(graph: string, threadId: string): pb.DeleteThreadRequest {
    return create(pb.DeleteThreadRequestSchema, { graph, threadId });
  }

  listGraphs(): pb.ListGraphsRequest {
    return create(pb.ListGraphsRequestSchema);
  }

  getGraph(graph: string): pb.GetGraphRequest {
    return create(pb.GetGraphRequestSchema, { graph });
  }

  // -- the store ---------------------------------------------------------------

  putItem(
    namespace: readonly string[],
    key: string,
    value: Record<string, unknown>,
    o: { index?: false | readonly string[] | undefined; ttl?: number | undefined },
  ): pb.PutItemRequest {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new TypeError("an item's value is an object (a JSON object)");
    }
    const request = create(pb.PutItemRequestSchema, {
      namespace: labels("namespace", namespace),
      key,
      valueJson: this.jsonText(value),
    });
    if (o.index === false) request.noIndex = true;
    else if (o.index !== undefined) request.indexFields = labels("index", o.index);
    if (o.ttl !== undefined) request.ttlMinutes = o.ttl;
    return request;
  }

  getItem(namespace: readonly string[], key: string, o: { refreshTtl?: boolean | undefined }): pb.GetItemRequest {
    const request = create(pb.GetItemRequestSchema, { namespace: labels("namespace", namespace), key });
    if (o.refreshTtl !== undefined) request.refreshTtl = o.refreshTtl;
    return request;
  }

  searchItems(
    namespacePrefix: readonly string[],
    o: {
      filter?: Record<string, unknown> | undefined;
      limit?: number | undefined;
      offset?: number | undefined;
      query?: string | undefined;
      refreshTtl?: boolean | undefined;
    },
  ): pb.SearchItemsRequest {
    const request = create(pb.SearchItemsRequestSchema, {
      namespacePrefix: labels("namespacePrefix", namespacePrefix),
      offset: uint32("offset", o.offset ?? 0),
      query: o.query ?? "",
    });
    if (o.filter !== undefined) request.filterJson = this.jsonText(o.filter);
    if (o.limit !== undefined) request.limit = uint32("limit", o.limit);
    if (o.refreshTtl !== undefined) request.refreshTtl = o.refreshTtl;
    return request;
  }

  deleteItem(namespace: readonly string[], key: string): pb.DeleteItemRequest {
    return create(pb.DeleteItemRequestSchema, { namespace: labels("namespace", namespace), key });
  }

  listNamespaces(o: {
    prefix?: readonly string[] | undefined;
    suffix?: readonly string[] | undefined;
    maxDepth?: number | undefined;
    limit?: number | undefined;
    offset?: number | undefined;
  }): pb.ListNamespacesRequest {
    const request = create(pb.ListNamespacesRequestSchema, {
      prefix: labels("prefix", o.prefix ?? []),
      suffix: labels("suffix", o.suffix ?? []),
      offset: uint32("offset", o.offset ?? 0),
    });
    if (o.maxDepth !== undefined) request.maxDepth = uint32("maxDepth", o.maxDepth);
    if (o.limit !== undefined) request.limit = uint32("limit", o.limit);
    return request;
  }

  // -- assistants ------------------------------------------------------------

  createAssistant(
    graph: string,
    o: AssistantFields & { assistantId?: string | undefined; ifExists?: string | undefined },
  ): pb.CreateAssistantRequest {
    const request = create(pb.CreateAssistantRequestSchema, {
      graph,
      assistantId: o.assistantId ?? "",
      name: o.name ?? "",
    });
    if (o.description !== undefined) request.description = o.description;
    if (o.config !== undefined) request.configJson = this.object("config", o.config);
    if (o.context !== undefined) request.contextJson = this.object("context", o.context);
    if (o.metadata !== undefined) request.metadataJson = this.object("metadata", o.metadata);
    if (o.ifExists !== undefined) {
      const ifExists = IF_EXISTS.get(o.ifExists);
      if (ifExists === undefined)
        throw new TypeError(`unknown ifExists ${JSON.stringify(o.ifExists)}; use "raise" or "do_nothing"`);
      request.ifExists = ifExists;
    }
    return request;
  }

  getAssistant(assistantId: string): pb.GetAssistantRequest {
    return create(pb.GetAssistantRequestSchema, { assistantId });
  }

  deleteAssistant(assistantId: string): pb.DeleteAssistantRequest {
    return create(pb.DeleteAssistantRequestSchema, { assistantId });
  }

  updateAssistant(assistantId: string, o: AssistantFields & { graph?: string | undefined }): pb.UpdateAssistantRequest {
    const request = create(pb.UpdateAssistantRequestSchema, { assistantId });
    if (o.graph !== undefined) request.graph = o.graph;
    if (o.name !== undefined) request.name = o.name;
    if (o.description !== undefined) request.description = o.description;
    if (o.config !== undefined) request.configJson = this.object("config", o.config);
    if (o.context !== undefined) request.contextJson = this.object("context", o.context);
    if (o.metadata !== undefined) request.metadataJson = this.object("metadata", o.metadata);
    return request;
  }

  setAssistantVersion(assistantId: string, version: number): pb.SetAssistantVersionRequest {
    if (!Number.isInteger(version) || version < 1 || version > 0x7fffffff) {
      throw new RangeError(`version must be an integer from 1 to 2^31 - 1, not ${version}`);
    }
    return create(pb.SetAssistantVersionRequestSchema, { assistantId, version });
  }

  listAssistantVersions(assistantId: string, o: AssistantPage): pb.ListAssistantVersionsRequest {
    const request = create(pb.ListAssistantVersionsRequestSchema, {
      assistantId,
      offset: uint32("offset", o.offset ?? 0),
    });
    if (o.metadata !== undefined) request.metadataJson = this.object("metadata", o.metadata);
    if (o.limit !== undefined) request.limit = uint32("limit", o.limit);
    return request;
  }

  searchAssistants(
    o: AssistantFilter & AssistantPage & { sortBy?: string | undefined; sortOrder?: string | undefined },
  ): pb.SearchAssistantsRequest {
    const request = create(pb.SearchAssistantsRequestSchema, this.assistantFilter(o));
    request.offset = uint32("offset", o.offset ?? 0);
    if (o.limit !== undefined) request.limit = uint32("limit", o.limit);
    if (o.sortBy !== undefined) {
      const sortBy = SORT_BY.get(o.sortBy);
      if (sortBy === undefined) {
        throw new TypeError(
          `unknown sortBy ${JSON.stringify(o.sortBy)}; use one of: ${[...SORT_BY.keys()].join(", ")}`,
        );
      }
      request.sortBy = sortBy;
    }
    if (o.sortOrder !== undefined && o.sortOrder !== "asc" && o.sortOrder !== "desc") {
      throw new TypeError(`unknown sortOrder ${JSON.stringify(o.sortOrder)}; use "asc" or "desc"`);
    }
    request.sortOrder = o.sortOrder === "asc" ? pb.SortOrder.ASC : pb.SortOrder.DESC;
    return request;
  }

  countAssistants(o: AssistantFilter): pb.CountAssistantsRequest {
    return create(pb.CountAssistantsRequestSchema, this.assistantFilter(o));
  }

  /** A search's or a count's filters. */
  private assistantFilter(o: AssistantFilter): { graph: string; name: string; metadataJson: string } {
    const metadataJson = o.metadata === undefined ? "" : this.object("metadata", o.metadata);
    return { graph: o.graph ?? "", name: o.name ?? "", metadataJson };
  }

  /** An object field's JSON text; a TypeError naming `name` for anything but a plain object. */
  private object(name: string, value: unknown): string {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new TypeError(
        `${name} is an object (a JSON object), not ${Array.isArray(value) ? "an array" : String(value)}`,
      );
    }
    return this.jsonText(value);
  }
}

/** `value` when it fits a uint32 field; a RangeError naming `name` otherwise. */
function uint32(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) {
    throw new RangeError(`${name} must be an integer from 0 to 2^32 - 1, not ${value}`);
  }
  return value;
}

/** A namespace's labels (a lone string is a mistake: `["memories"]`, not `"memories"`). */
function labels(name: string, value: readonly string[]): string[] {
  if (typeof value === "string")
    throw new TypeError(`${name} is an array of labels, not a string: use [${JSON.stringify(value)}]`);
  return [...value];
}
