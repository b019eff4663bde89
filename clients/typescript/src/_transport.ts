/**
 * The generated `GraphService` descriptor, bound to @grpc/grpc-js.
 *
 * protoc-gen-es gives message types, their schemas and a service descriptor,
 * but no transport. grpc-js calls any method given its path and a pair of
 * (de)serializers, so binding is small: the path is
 * `/<service type name>/<method name>`, and the (de)serializers are
 * protobuf-es's `toBinary`/`fromBinary` with the method's schemas. This
 * module also turns failed calls into typed errors and wires `AbortSignal`,
 * deadlines and metadata (the bearer token first) into every call.
 *
 * @internal
 */

import { fromBinary, toBinary, type DescMessage, type DescMethod, type MessageShape } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import * as zlib from "node:zlib";

import { CancelledError, Code, errorForCode, type GraphwireError } from "./errors.js";
import { VERSION } from "./version.js";

/** The calls on a thread that take the channel its id names (see `Transport.#clientFor`). */
const THREAD_CALLS = new Set(["Invoke", "Resume", "Fork", "GetState", "ListHistory", "UpdateState", "DeleteThread"]);
/** Node's CRC-32 (Node 20.15 and later; before it, every call takes the next channel in turn). */
const crc32 = (zlib as { crc32?: (data: string) => number }).crc32;

/** What every call accepts. */
export interface CallOptions {
  /** Cancels the call (and, for a run, the run) when it aborts. */
  signal?: AbortSignal | undefined;
  /** A deadline for the whole call, in milliseconds from now; a run's deadline cancels the run. */
  timeoutMs?: number | undefined;
  /** Extra call metadata, such as W3C `traceparent`, sent after the client's own. */
  metadata?: Readonly<Record<string, string | readonly string[]>> | undefined;
}

/** How to reach the server. */
export interface TransportOptions {
  token?: string | undefined;
  tls?: boolean | string | Uint8Array | undefined;
  channelOptions?: grpc.ChannelOptions | undefined;
  channels?: number | undefined;
}

/** Run states and histories can be large; the server caps what it sends, so accept up to this. */
export const DEFAULT_MAX_RECEIVE = 64 * 1024 * 1024;

export type Method<I extends DescMessage, O extends DescMessage> = DescMethod & { input: I; output: O };

/** Receives a server stream's messages, then exactly one of `error` or `end`. */
export interface StreamSink<T> {
  message(message: T): void;
  error(error: GraphwireError): void;
  end(): void;
}

function credentials(tls: TransportOptions["tls"]): grpc.ChannelCredentials {
  if (tls === undefined || tls === false) return grpc.credentials.createInsecure();
  if (tls === true) return grpc.credentials.createSsl();
  if (typeof tls === "string" || tls instanceof Uint8Array) return grpc.credentials.createSsl(Buffer.from(tls));
  throw new TypeError("tls must be a boolean, or PEM root certificates as a string or bytes");
}

export class Transport {
  readonly #clients: grpc.Client[];
  #turn = 0;
  readonly #token: string | undefined;

  constructor(address: string, options: TransportOptions) {
    if (options.token !== undefined && options.token === "") {
      throw new TypeError("token is empty; leave it out for no token");
    }
    const channels = options.channels ?? 1;
    if (!Number.isInteger(channels) || channels < 1 || channels > 1024) {
      throw new TypeError(`channels must be a whole number from 1 to 1024, not ${String(channels)}`);
    }
    this.#token = options.token;
    const settings: grpc.ChannelOptions = {
      "grpc.primary_user_agent": `graphwire-ts/${VERSION}`,
      "grpc.max_receive_message_length": DEFAULT_MAX_RECEIVE,
      // Several channels: each its own connection (grpc-js shares one among channels of equal options).
      ...(channels > 1 ? { "grpc.use_local_subchannel_pool": 1 } : {}),
      ...options.channelOptions,
    };
    const creds = credentials(options.tls);
    this.#clients = Array.from({ length: channels }, () => new grpc.Client(address, creds, settings));
  }

  /** The next channel, round-robin: a call stays on the one it started on. */
  get #client(): grpc.Client {
    const client = this.#clients[this.#turn % this.#clients.length] as grpc.Client;
    this.#turn = (this.#turn + 1) % this.#clients.length;
    return client;
  }

  /**
   * The channel of a call: a call on a thread (its runs, state, history, updates, its deletion) takes
   * the one its id names (its CRC-32 modulo the channels, as the Python and Go clients pick), so a
   * server run with `--workers N` (each connection one worker's) serves a thread's turns in one
   * process, whose caches know it; any other call the next one.
   */
  #clientFor(method: { name: string }, request: unknown): grpc.Client {
    const threadId = (request as { threadId?: unknown }).threadId;
    if (
      this.#clients.length > 1 &&
      crc32 !== undefined &&
      THREAD_CALLS.has(method.name) &&
      typeof threadId === "string"
    ) {
      return this.#clients[crc32(threadId) % this.#clients.length] as grpc.Client;
    }
    return this.#client;
  }

  unary<I extends DescMessage, O extends DescMessage>(
    method: Method<I, O>,
    request: MessageShape<I>,
    options: CallOptions,
  ): Promise<MessageShape<O>> {
    const trace = new Error();
    return new Promise((resolve, reject) => {
      const signal = options.signal;
      if (signal?.aborted) {
        reject(cancelledBeforeStart(signal));
        return;
      }
      const call = this.#clientFor(method, request).makeUnaryRequest(
        path(method),
        (message: MessageShape<I>) => Buffer.from(toBinary(method.input, message)),
        (bytes: Buffer) => fromBinary(method.output, bytes),
        request,
        this.#metadata(options),
        callOptions(options),
        (error, response) => {
          signal?.removeEventListener("abort", onAbort);
          if (error !== null) reject(toError(error, signal, trace));
          else if (response === undefined) reject(errorForCode(Code.INTERNAL, "the server sent no response"));
          else resolve(response);
        },
      );
      const onAbort = (): void => call.cancel();
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Starts a server-streaming call; messages and the outcome go to `sink`. */
  serverStream<I extends DescMessage, O extends DescMessage>(
    method: Method<I, O>,
    request: MessageShape<I>,
    options: CallOptions,
    sink: StreamSink<MessageShape<O>>,
  ): { cancel(): void } {
    const trace = new Error();
    const signal = options.signal;
    if (signal?.aborted) {
      queueMicrotask(() => sink.error(cancelledBeforeStart(signal)));
      return { cancel() {} };
    }
    const call = this.#clientFor(method, request).makeServerStreamRequest(
      path(method),
      (message: MessageShape<I>) => Buffer.from(toBinary(method.input, message)),
      (bytes: Buffer) => fromBinary(method.output, bytes),
      request,
      this.#metadata(options),
      callOptions(options),
    );
    let settled = false;
    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      outcome();
    };
    const onAbort = (): void => call.cancel();
    signal?.addEventListener("abort", onAbort, { once: true });
    call.on("data", (message: MessageShape<O>) => {
      if (!settled) sink.message(message);
    });
    // grpc-js emits "error" (for a non-OK status) before "end"; "end" only
    // comes once every message has been delivered.
    call.on("error", (error: grpc.ServiceError) => settle(() => sink.error(toError(error, signal, trace))));
    call.on("end", () => settle(() => sink.end()));
    return {
      cancel() {
        call.cancel();
      },
    };
  }

  close(): void {
    for (const client of this.#clients) client.close();
  }

  #metadata(options: CallOptions): grpc.Metadata {
    const metadata = new grpc.Metadata();
    if (this.#token !== undefined) metadata.add("authorization", `Bearer ${this.#token}`);
    for (const [key, value] of Object.entries(options.metadata ?? {})) {
      for (const item of typeof value === "string" ? [value] : value) metadata.add(key, item);
    }
    return metadata;
  }
}

function path(method: DescMethod): string {
  return `/${method.parent.typeName}/${method.name}`;
}

function callOptions(options: CallOptions): grpc.CallOptions {
  return options.timeoutMs === undefined ? {} : { deadline: Date.now() + options.timeoutMs };
}

function cancelledBeforeStart(signal: AbortSignal): GraphwireError {
  return new CancelledError("the call's AbortSignal was aborted before it started", { cause: signal.reason });
}

/** A failed call as a typed error, with the caller's stack appended for debugging. */
function toError(error: grpc.ServiceError, signal: AbortSignal | undefined, trace: Error): GraphwireError {
  const metadata: Record<string, string | Uint8Array> = {};
  for (const [key, value] of Object.entries(error.metadata?.getMap() ?? {})) metadata[key] = value;
  let typed: GraphwireError;
  if (error.code === grpc.status.CANCELLED && signal?.aborted) {
    typed = new CancelledError("the call was cancelled by its AbortSignal", { metadata, cause: signal.reason });
  } else {
    typed = errorForCode(error.code, error.details || error.message, { metadata });
  }
  const caller = trace.stack?.split("\n").slice(1).join("\n");
  if (caller) typed.stack = `${typed.stack ?? String(typed)}\n    --- the call was made at ---\n${caller}`;
  return typed;
}
