/**
 * `AssistantsClient`: the server's assistants, as `client.assistants`.
 *
 * An assistant is a named, versioned configuration of a registered graph:
 * its `config` (`configurable`, `recursion_limit`) and `context` are the
 * defaults of every run that names it (`client.invoke("", threadId, input,
 * { assistantId })`; the call's own values win, key by key). Every change is
 * a new version, and one version is current. The method names are those of
 * LangGraph's JS SDK (`client.assistants.create` …). With per-tenant tokens,
 * each tenant sees its own assistants and the graphs' default ones, which it
 * may run but not change.
 *
 * @module
 */

import { decoded, type Decoder } from "./_decode.js";
import type { Encoder } from "./_requests.js";
import type { CallOptions, Transport } from "./_transport.js";
import { GraphService } from "./gen/graphwire/v1/graphwire_pb.js";
import type { Assistant, AssistantConfig } from "./types.js";

/** What `search` sorts by (`graph_id` is LangGraph's name for `graph`). */
export type AssistantSortBy = "assistant_id" | "graph" | "graph_id" | "name" | "created_at" | "updated_at";

/** What `create` sets. */
export interface CreateAssistantParams {
  /** Its config: `configurable`, `recursion_limit` and `tags`; other keys are `InvalidArgumentError`. */
  config?: AssistantConfig | undefined;
  /** Its context, as a run's `context`. */
  context?: Record<string, unknown> | undefined;
  /** The caller's own metadata, which `search` filters by. */
  metadata?: Record<string, unknown> | undefined;
  /** Its id; omitted: a new UUID. */
  assistantId?: string | undefined;
  /** When `assistantId` is taken: "raise" (the default, `AlreadyExistsError`) or "do_nothing" (return the one there). */
  ifExists?: "raise" | "do_nothing" | undefined;
  /** Its name; omitted: "Untitled". */
  name?: string | undefined;
  description?: string | undefined;
}

/** What `update` sets: what is given replaces the current version's (`metadata` is merged into it, key by key). */
export interface UpdateAssistantParams {
  /** Another registered graph. */
  graph?: string | undefined;
  config?: AssistantConfig | undefined;
  context?: Record<string, unknown> | undefined;
  metadata?: Record<string, unknown> | undefined;
  name?: string | undefined;
  description?: string | undefined;
}

/** What `getVersions` lists. */
export interface GetAssistantVersionsParams {
  /** Only versions whose metadata contains this object. */
  metadata?: Record<string, unknown> | undefined;
  /** The most versions to return (at most 1000); omitted: 10. */
  limit?: number | undefined;
  /** How many to skip, for paging. */
  offset?: number | undefined;
}

/** What `count` counts; every filter given must match. */
export interface CountAssistantsParams {
  /** Only the assistants of this graph. */
  graph?: string | undefined;
  /** Only those whose name contains this text, ignoring case. */
  name?: string | undefined;
  /** Only those whose metadata contains this object (`{team: "x"}` matches `{team: "x", tier: 2}`). */
  metadata?: Record<string, unknown> | undefined;
}

/** What `search` finds: the filters of `count`, an order and a page. */
export interface SearchAssistantsParams extends CountAssistantsParams {
  /** The most to return (at most 1000); omitted: 10. */
  limit?: number | undefined;
  /** How many to skip, for paging. */
  offset?: number | undefined;
  /** Omitted: "created_at". Ties are broken by id. */
  sortBy?: AssistantSortBy | undefined;
  /** Omitted: "desc" (newest first). */
  sortOrder?: "asc" | "desc" | undefined;
}

/**
 * The assistant RPCs of one `Client`: `client.assistants`. Each method takes what it sends
 * (`params`, as LangGraph's SDK's payloads) and, last, the call's `CallOptions`.
 *
 * ```ts
 * const bot = await client.assistants.create("chat", { config: { configurable: { model: "small" } }, name: "Small" });
 * const result = await client.invoke("", "thread-1", input, { assistantId: bot.assistantId }).result();
 * ```
 */
export class AssistantsClient {
  readonly #transport: Transport;
  readonly #encode: Encoder;
  readonly #decode: Decoder;

  /** @internal `Client` makes it; use `client.assistants`. */
  constructor(transport: Transport, encode: Encoder, decode: Decoder) {
    this.#transport = transport;
    this.#encode = encode;
    this.#decode = decode;
  }

  /** A new assistant of `graph` (version 1); `NotFoundError` for an unknown graph. */
  async create(graph: string, params: CreateAssistantParams = {}, options: CallOptions = {}): Promise<Assistant> {
    const request = this.#encode.createAssistant(graph, params);
    const response = await this.#transport.unary(GraphService.method.createAssistant, request, options);
    return decoded(() => this.#decode.assistant(response));
  }

  /** The assistant's current version; `NotFoundError` when there is none. */
  async get(assistantId: string, options: CallOptions = {}): Promise<Assistant> {
    const request = this.#encode.getAssistant(assistantId);
    const response = await this.#transport.unary(GraphService.method.getAssistant, request, options);
    return decoded(() => this.#decode.assistant(response));
  }

  /** A new version, current from now; `InvalidArgumentError` when `params` sets nothing. */
  async update(assistantId: string, params: UpdateAssistantParams, options: CallOptions = {}): Promise<Assistant> {
    const request = this.#encode.updateAssistant(assistantId, params);
    const response = await this.#transport.unary(GraphService.method.updateAssistant, request, options);
    return decoded(() => this.#decode.assistant(response));
  }

  /** Makes `version` the current one (an older one, to roll back); `NotFoundError` for an unknown version. */
  async setLatest(assistantId: string, version: number, options: CallOptions = {}): Promise<Assistant> {
    const request = this.#encode.setAssistantVersion(assistantId, version);
    const response = await this.#transport.unary(GraphService.method.setAssistantVersion, request, options);
    return decoded(() => this.#decode.assistant(response));
  }

  /** The assistant's versions, newest first. */
  async getVersions(
    assistantId: string,
    params: GetAssistantVersionsParams = {},
    options: CallOptions = {},
  ): Promise<Assistant[]> {
    const request = this.#encode.listAssistantVersions(assistantId, params);
    const response = await this.#transport.unary(GraphService.method.listAssistantVersions, request, options);
    return decoded(() => response.versions.map((a) => this.#decode.assistant(a)));
  }

  /** The assistants (their current versions) matching every filter given, a page of `limit` from `offset`. */
  async search(params: SearchAssistantsParams = {}, options: CallOptions = {}): Promise<Assistant[]> {
    const request = this.#encode.searchAssistants(params);
    const response = await this.#transport.unary(GraphService.method.searchAssistants, request, options);
    return decoded(() => response.assistants.map((a) => this.#decode.assistant(a)));
  }

  /** How many assistants `search` with these filters finds (all pages). */
  async count(params: CountAssistantsParams = {}, options: CallOptions = {}): Promise<number> {
    const request = this.#encode.countAssistants(params);
    const response = await this.#transport.unary(GraphService.method.countAssistants, request, options);
    return response.count;
  }

  /** Deletes the assistant and all its versions (its threads stay); resolves to whether there was one. */
  async delete(assistantId: string, options: CallOptions = {}): Promise<boolean> {
    const request = this.#encode.deleteAssistant(assistantId);
    const response = await this.#transport.unary(GraphService.method.deleteAssistant, request, options);
    return response.deleted;
  }
}
