/**
 * The client against a scripted in-process gRPC server, for what a real
 * server does not do on demand: a newer server's unknown event kinds and
 * enum values, broken streams, undecodable payloads; and what the client
 * sends (metadata, the request fields).
 */

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";

import { Client, FinishReason, UnknownError } from "@graphwire/client";
import * as pb from "@graphwire/client/proto";

/** One RunEvent's bytes; `extra` is appended raw (fields this client does not know). */
function event(
  seq: number,
  init: Parameters<typeof create<typeof pb.RunEventSchema>>[1],
  extra: number[] = [],
): Buffer {
  const bytes = toBinary(pb.RunEventSchema, create(pb.RunEventSchema, { seq, runId: "run-1", ...init }));
  return Buffer.concat([bytes, Buffer.from(extra)]);
}

const started = (seq = 1): Buffer =>
  event(seq, { event: { case: "runStarted", value: { runId: "run-1", threadId: "t", graph: "g" } } });

/** What the fake server streams, by the request's thread id. */
const SCRIPTS: Record<string, Buffer[]> = {
  // A newer server: an event kind (field 30 of the oneof) and a FinishReason (99) this client does not know.
  newer: [
    started(),
    event(2, {}, [0xf2, 0x01, 0x00]),
    event(2 ** 31, {
      event: {
        case: "runFinished",
        value: { reason: 99 as pb.FinishReason, valuesJson: JSON.stringify({ ok: true }) },
      },
    }),
  ],
  // A stream that ends without run_finished.
  truncated: [started()],
  // A value whose text is not JSON.
  undecodable: [
    started(),
    event(2, { event: { case: "runFinished", value: { reason: pb.FinishReason.END, valuesJson: "{not json" } } }),
  ],
};

let server: grpc.Server;
let address: string;
const seen: { request: pb.InvokeRequest; metadata: grpc.Metadata }[] = [];

before(async () => {
  server = new grpc.Server();
  server.register<Buffer, Buffer>(
    "/graphwire.v1.GraphService/Invoke",
    (call: grpc.ServerWritableStream<Buffer, Buffer>) => {
      const request = fromBinary(pb.InvokeRequestSchema, call.request);
      seen.push({ request, metadata: call.metadata });
      for (const message of SCRIPTS[request.threadId] ?? []) call.write(message);
      call.end();
    },
    (bytes) => bytes,
    (bytes) => bytes,
    "serverStream",
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, p) =>
      error ? reject(error) : resolve(p),
    ),
  );
  address = `127.0.0.1:${port}`;
});

after(() => {
  server?.forceShutdown();
});

describe("a newer server", () => {
  test("unknown event kinds are skipped and unknown reasons read as UNSPECIFIED", async () => {
    const client = new Client(address);
    try {
      const run = client.invoke("g", "newer", null);
      const kinds: string[] = [];
      for await (const e of run) kinds.push(e.kind);
      assert.deepEqual(kinds, ["run_started", "run_finished"]);
      const result = await run.result();
      assert.equal(result.reason, FinishReason.UNSPECIFIED);
      assert.deepEqual(result.values, { ok: true });
      assert.equal(result.events.at(-1)?.seq, 2 ** 31, "seq reads as a number");
    } finally {
      client.close();
    }
  });
});

describe("a broken stream", () => {
  test("a stream without run_finished is an UnknownError", async () => {
    const client = new Client(address);
    try {
      await assert.rejects(client.invoke("g", "truncated", null).result(), (e: unknown) => {
        assert.ok(e instanceof UnknownError);
        assert.match(e.message, /without a run_finished event/);
        return true;
      });
    } finally {
      client.close();
    }
  });

  test("a value the client cannot decode is an UnknownError", async () => {
    const client = new Client(address);
    try {
      await assert.rejects(client.invoke("g", "undecodable", null).result(), (e: unknown) => {
        assert.ok(e instanceof UnknownError);
        assert.match(e.message, /could not decode an event/);
        return true;
      });
    } finally {
      client.close();
    }
  });
});

describe("what the client sends", () => {
  test("the token and the call's metadata go out; options become request fields", async () => {
    const client = new Client(address, { token: "tok" });
    try {
      seen.length = 0;
      await client
        .invoke(
          "g",
          "truncated",
          { messages: [] },
          {
            metadata: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" },
            eventKinds: ["values", "message_chunk", "values"],
            enqueue: true,
            checkpointId: "cp-1",
            recursionLimit: 5,
            durability: "sync",
            runMetadata: { turn: 1 },
            interruptBefore: ["model"],
          },
        )
        .result()
        .catch(() => {});
      const { request, metadata } = seen[0]!;
      assert.deepEqual(metadata.get("authorization"), ["Bearer tok"]);
      assert.deepEqual(metadata.get("traceparent"), ["00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"]);
      assert.equal(request.graph, "g");
      assert.equal(request.inputJson, '{"messages":[]}');
      assert.deepEqual(request.eventKinds, [pb.EventKind.VALUES, pb.EventKind.MESSAGE_CHUNK]);
      assert.equal(request.enqueue, true);
      assert.equal(request.checkpointId, "cp-1");
      assert.equal(request.config?.recursionLimit, 5);
      assert.equal(request.config?.durability, pb.Durability.SYNC);
      assert.equal(request.config?.metadataJson, '{"turn":1}');
      assert.deepEqual(request.config?.interruptBefore, ["model"]);

      seen.length = 0;
      await client
        .invoke("g", "truncated", null)
        .result()
        .catch(() => {});
      assert.equal(seen[0]!.request.inputJson, "", "null input: the field stays empty");
      assert.equal(seen[0]!.request.config, undefined, "no overrides: no config");
      assert.deepEqual(seen[0]!.request.eventKinds, [], "no eventKinds: every kind");
    } finally {
      client.close();
    }
  });
});
