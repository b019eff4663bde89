/**
 * Retries and re-joins against a scripted in-process server that fails on
 * purpose: UNAVAILABLE before the first event (retried with one requestId,
 * a bounded number of times), or after some events (re-joined with JoinRun
 * from the last seq when the run continues without its caller, reported
 * otherwise). durable.test.ts does the same through a TCP proxy against the
 * real server.
 */

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";

import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import * as grpc from "@grpc/grpc-js";

import { Client, FinishReason, OnDisconnect, RunStatus, UnavailableError, UnknownError } from "@graphwire/client";
import * as pb from "@graphwire/client/proto";

const FAST = { attempts: 4, initialBackoffMs: 1, maxBackoffMs: 10 };

function event(seq: number, runId = "r1"): Buffer {
  const init: Parameters<typeof create<typeof pb.RunEventSchema>>[1] =
    seq === 1
      ? { event: { case: "runStarted", value: { runId, threadId: "t", graph: "g" } } }
      : seq === 5
        ? { event: { case: "runFinished", value: { reason: pb.FinishReason.END, valuesJson: "{}" } } }
        : { event: { case: "custom", value: { step: seq, node: "n", payloadJson: String(seq) } } };
  return Buffer.from(toBinary(pb.RunEventSchema, create(pb.RunEventSchema, { seq, runId, ...init })));
}

const unavailable = (details: string) => ({ code: grpc.status.UNAVAILABLE, details });

let server: grpc.Server;
let address: string;
let requests: (pb.InvokeRequest | pb.JoinRunRequest | pb.UpdateStateRequest)[] = [];
let failures = new Map<string, number>();

const idOf = (r: (typeof requests)[number]): string => ("requestId" in r ? r.requestId : "");

/** Threads named `flaky-N` fail their first N calls. */
function failsNow(key: string): boolean {
  const n = failures.get(key) ?? 0;
  failures.set(key, n + 1);
  const thread = key.split(":")[1] ?? "";
  return thread.startsWith("flaky-") && n < Number(thread.slice("flaky-".length));
}

before(async () => {
  server = new grpc.Server();
  const raw = (bytes: Buffer): Buffer => bytes;
  server.register<Buffer, Buffer>(
    "/graphwire.v1.GraphService/Invoke",
    (call: grpc.ServerWritableStream<Buffer, Buffer>) => {
      const request = fromBinary(pb.InvokeRequestSchema, call.request);
      requests.push(request);
      if (failsNow(`Invoke:${request.threadId}`)) {
        call.emit("error", unavailable(`attempt ${failures.get(`Invoke:${request.threadId}`)} dropped`));
        return;
      }
      for (let seq = 1; seq <= (request.background ? 1 : 5); seq++) {
        if (request.threadId === "drops" && seq === 4) {
          call.emit("error", unavailable("Connection reset by peer"));
          return;
        }
        call.write(event(seq));
      }
      call.end();
    },
    raw,
    raw,
    "serverStream",
  );
  server.register<Buffer, Buffer>(
    "/graphwire.v1.GraphService/JoinRun",
    (call: grpc.ServerWritableStream<Buffer, Buffer>) => {
      const request = fromBinary(pb.JoinRunRequestSchema, call.request);
      requests.push(request);
      if (requests.filter((r) => r.$typeName === "graphwire.v1.JoinRunRequest").length === 1) {
        call.emit("error", unavailable("no route")); // the first join fails too
        return;
      }
      for (let seq = Math.max(1, request.afterSeq); seq <= 5; seq++) call.write(event(seq, request.runId)); // one repeat
      call.end();
    },
    raw,
    raw,
    "serverStream",
  );
  server.register<Buffer, Buffer>(
    "/graphwire.v1.GraphService/UpdateState",
    (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
      const request = fromBinary(pb.UpdateStateRequestSchema, call.request);
      requests.push(request);
      if (failsNow(`UpdateState:${request.threadId}`)) return callback(unavailable("dropped"));
      const response = create(pb.UpdateStateResponseSchema, { checkpoint: { checkpointId: "c2", source: "update" } });
      callback(null, Buffer.from(toBinary(pb.UpdateStateResponseSchema, response)));
    },
    raw,
    raw,
    "unary",
  );
  server.register<Buffer, Buffer>(
    "/graphwire.v1.GraphService/GetRun",
    (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
      const request = fromBinary(pb.GetRunRequestSchema, call.request);
      const info = create(pb.RunInfoSchema, {
        runId: request.runId,
        threadId: "t",
        status: pb.RunStatus.RECOVERING,
        replica: "h:1:ab",
        attempts: 2,
        call: "Invoke",
        callJson: JSON.stringify({ input: { text: "hi" } }),
        startedAt: timestampFromMs(1_800_000_000_000),
        lastSeq: 7,
        onDisconnect: pb.OnDisconnect.CONTINUE,
      });
      callback(null, Buffer.from(toBinary(pb.RunInfoSchema, info)));
    },
    raw,
    raw,
    "unary",
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

beforeEach(() => {
  requests = [];
  failures = new Map();
});

describe("retries", () => {
  test("a run call is retried with one requestId", async () => {
    const client = new Client(address, { retry: FAST });
    const run = client.invoke("g", "flaky-2", { x: 1 });
    const result = await run.result();
    assert.equal(result.reason, FinishReason.END);
    assert.equal(run.calls, 3);
    const ids = new Set(requests.map(idOf));
    assert.equal(ids.size, 1);
    assert.equal(run.requestId?.length, 36);
    assert.ok(ids.has(run.requestId ?? ""));
    await client.invoke("g", "flaky-1", null, { requestId: "my-call-7" }).result();
    assert.deepEqual(requests.slice(3).map(idOf), ["my-call-7", "my-call-7"]);
    client.close();
  });

  test("attempts are bounded, and retrying can be turned off", async () => {
    const client = new Client(address, { retry: FAST });
    await assert.rejects(client.invoke("g", "flaky-9", null).result(), /attempt 4 dropped/);
    assert.equal(requests.length, 4);
    await assert.rejects(client.invoke("g", "flaky-1", null, { retry: false }).result(), UnavailableError);
    assert.equal(idOf(requests.at(-1)!), ""); // no retry: no generated id
    client.close();
    const off = new Client(address, { retry: false });
    await assert.rejects(off.updateState("g", "flaky-1", { x: 1 }), UnavailableError);
    assert.equal(idOf(requests.at(-1)!), "");
    off.close();
  });

  test("updateState is retried with one requestId", async () => {
    const client = new Client(address, { retry: FAST });
    const checkpoint = await client.updateState("g", "flaky-2", { x: 1 });
    assert.equal(checkpoint.checkpointId, "c2");
    assert.equal(requests.length, 3);
    assert.equal(new Set(requests.map(idOf)).size, 1);
    client.close();
  });

  test("a dropped stream of a continuing run is joined again, each event once", async () => {
    const client = new Client(address, { retry: FAST });
    const run = client.invoke("g", "drops", null, { onDisconnect: OnDisconnect.CONTINUE });
    const seqs: number[] = [];
    for await (const e of run) seqs.push(e.seq);
    assert.deepEqual(seqs, [1, 2, 3, 4, 5]);
    assert.deepEqual([run.runId, run.seq, run.calls], ["r1", 5, 3]);
    const [invoke, ...joins] = requests;
    assert.equal((invoke as pb.InvokeRequest).onDisconnect, pb.OnDisconnect.CONTINUE);
    assert.deepEqual(
      joins.map((j) => [(j as pb.JoinRunRequest).runId, (j as pb.JoinRunRequest).afterSeq]),
      [
        ["r1", 3],
        ["r1", 3],
      ],
    );
    const result = await run.result();
    assert.equal(result.events.filter((e) => e.kind === "run_finished").length, 1);
    client.close();
  });

  test("a dropped stream of a run that is cancelled with it is reported", async () => {
    const client = new Client(address, { retry: FAST });
    const run = client.invoke("g", "drops", null);
    await assert.rejects(run.result(), /reset/);
    assert.equal(requests.length, 1);
    assert.equal(run.seq, 3);
    client.close();
  });

  test("a background run is followed with joinRun; getRun reads its record", async () => {
    const client = new Client(address, { retry: FAST });
    const run = client.invoke("g", "t", null, { background: true });
    await assert.rejects(run.result(), (e: unknown) => e instanceof UnknownError && /joinRun/.test(e.message));
    assert.equal(run.runId, "r1");
    const joined = await client.joinRun(run.runId ?? "", { afterSeq: run.seq }).result();
    assert.equal(joined.reason, FinishReason.END);
    assert.deepEqual(
      joined.events.map((e) => e.seq),
      [2, 3, 4, 5],
    );
    const info = await client.getRun("r1");
    assert.deepEqual([info.status, info.attempts, info.replica, info.lastSeq], [RunStatus.RECOVERING, 2, "h:1:ab", 7]);
    assert.deepEqual(info.callArgs, { input: { text: "hi" } });
    assert.equal(info.reason, null);
    assert.equal(info.startedAt?.getTime(), 1_800_000_000_000);
    assert.equal(info.onDisconnect, OnDisconnect.CONTINUE);
    client.close();
  });
});
