/**
 * `StoreClient`: the server's store (long-term memory), as `client.store`.
 *
 * The store keeps JSON objects under a namespace (labels such as
 * `["memories", userId]`) and a key, shared by every thread of every graph:
 * what a node remembers about a user, a caller can show, edit or delete.
 * The method names are those of LangGraph's JS SDK (`client.store.putItem`
 * …). With per-tenant tokens, each tenant sees only its own namespaces.
 *
 * @module
 */

import { decoded, type Decoder } from "./_decode.js";
import type { Encoder } from "./_requests.js";
import type { CallOptions, Transport } from "./_transport.js";
import { NotFoundError } from "./errors.js";
import { GraphService } from "./gen/graphwire/v1/graphwire_pb.js";
import type { Item } from "./types.js";

/** Options of `putItem`. */
export interface PutItemOptions extends CallOptions {
  /** The fields to embed for semantic search (paths such as "text"); false: none; omitted: the server's configured ones. */
  index?: false | readonly string[] | undefined;
  /** Minutes until the item expires; 0: never; omitted: the server's default. */
  ttl?: number | undefined;
}

/** Options of `getItem`. */
export interface GetItemOptions extends CallOptions {
  /** Whether this read pushes the item's expiry back; omitted: the server's default. */
  refreshTtl?: boolean | undefined;
}

/** Options of `searchItems`. */
export interface SearchItemsOptions extends CallOptions {
  /** Only items whose value has these keys and values, or compares as asked (`{stars: {$gte: 4}}`). */
  filter?: Record<string, unknown> | undefined;
  /** The most items to return (at most 1000); omitted: 10. */
  limit?: number | undefined;
  /** How many matching items to skip, for paging. */
  offset?: number | undefined;
  /** Rank by similarity to this text (semantic search: the server's store needs an index). */
  query?: string | undefined;
  /** Whether returning an item pushes its expiry back; omitted: the server's default. */
  refreshTtl?: boolean | undefined;
}

/** Options of `listNamespaces`. */
export interface ListNamespacesOptions extends CallOptions {
  /** Only namespaces starting with these labels ("*": any one label). */
  prefix?: readonly string[] | undefined;
  /** Only namespaces ending with these labels ("*": any one label). */
  suffix?: readonly string[] | undefined;
  /** Cut each namespace to this many labels (listed once). */
  maxDepth?: number | undefined;
  /** The most namespaces to return (at most 1000); omitted: 100. */
  limit?: number | undefined;
  /** How many to skip, for paging. */
  offset?: number | undefined;
}

/**
 * The store RPCs of one `Client`: `client.store`.
 *
 * ```ts
 * await client.store.putItem(["memories", "user-42"], "tea", { text: "likes tea" });
 * for (const item of await client.store.searchItems(["memories", "user-42"])) console.log(item.key, item.value);
 * ```
 */
export class StoreClient {
  readonly #transport: Transport;
  readonly #encode: Encoder;
  readonly #decode: Decoder;

  /** @internal `Client` makes it; use `client.store`. */
  constructor(transport: Transport, encode: Encoder, decode: Decoder) {
    this.#transport = transport;
    this.#encode = encode;
    this.#decode = decode;
  }

  /** Stores `value` (an object) under `(namespace, key)`, replacing what was there. */
  async putItem(
    namespace: readonly string[],
    key: string,
    value: Record<string, unknown>,
    options: PutItemOptions = {},
  ): Promise<void> {
    const request = this.#encode.putItem(namespace, key, value, options);
    await this.#transport.unary(GraphService.method.putItem, request, options);
  }

  /** The item at `(namespace, key)`, or null when there is none. */
  async getItem<V = Record<string, unknown>>(
    namespace: readonly string[],
    key: string,
    options: GetItemOptions = {},
  ): Promise<Item<V> | null> {
    const request = this.#encode.getItem(namespace, key, options);
    try {
      const response = await this.#transport.unary(GraphService.method.getItem, request, options);
      return decoded(() => this.#decode.item<V>(response));
    } catch (error) {
      if (error instanceof NotFoundError) return null;
      throw error;
    }
  }

  /** Items under `namespacePrefix` matching `filter` (ranked by `query`), a page of `limit` from `offset`. */
  async searchItems<V = Record<string, unknown>>(
    namespacePrefix: readonly string[],
    options: SearchItemsOptions = {},
  ): Promise<Item<V>[]> {
    const request = this.#encode.searchItems(namespacePrefix, options);
    const response = await this.#transport.unary(GraphService.method.searchItems, request, options);
    return decoded(() => response.items.map((i) => this.#decode.item<V>(i)));
  }

  /** Deletes the item at `(namespace, key)`; resolves to whether there was one. */
  async deleteItem(namespace: readonly string[], key: string, options: CallOptions = {}): Promise<boolean> {
    const request = this.#encode.deleteItem(namespace, key);
    const response = await this.#transport.unary(GraphService.method.deleteItem, request, options);
    return response.deleted;
  }

  /** The namespaces that hold items, sorted. */
  async listNamespaces(options: ListNamespacesOptions = {}): Promise<string[][]> {
    const request = this.#encode.listNamespaces(options);
    const response = await this.#transport.unary(GraphService.method.listNamespaces, request, options);
    return response.namespaces.map((ns) => [...ns.labels]);
  }
}
