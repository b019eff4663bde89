/**
 * Thread records over gRPC (`client.threads`), against a live graphwire server: every thread RPC
 * reaches the server and comes back decoded (issue 33). The server's own behaviour is pinned by
 * the Python tests (tests/server/test_thread_records.py).
 */

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { AlreadyExistsError, Client, NotFoundError } from "@graphwire/client";
import type { GraphwireServer } from "@graphwire/client/testing";

import { startGraphwire } from "./helpers.js";

let server: GraphwireServer;
let client: Client;

before(async () => {
  server = await startGraphwire({
    args: ["--graph", "chain3=tests.graphs:chain3", "--graph", "questions=tests.graphs:questions"],
  });
  client = new Client(server.address);
});

after(async () => {
  client?.close();
  await server?.stop();
});

describe("client.threads", () => {
  test("create, get, update, search, count, copy, prune, delete", async () => {
    const tag = randomUUID().slice(0, 8);
    const made = await client.threads.create("chain3", { threadMetadata: { tag, user: "ann" }, ttl: 3600 });
    assert.equal(made.status, "idle");
    assert.deepEqual(made.ttl, { seconds: 3600, strategy: "delete" });
    assert.ok(made.expiresAt instanceof Date);
    await assert.rejects(client.threads.create("chain3", { threadId: made.threadId }), AlreadyExistsError);
    const same = await client.threads.create("chain3", { threadId: made.threadId, ifExists: "do_nothing" });
    assert.deepEqual(same.metadata, { tag, user: "ann" });
    await client.invoke("chain3", made.threadId, { n: 1 }).result();
    await client.invoke("chain3", made.threadId, { n: 10 }).result();
    const got = await client.threads.get<{ n: number }>("chain3", made.threadId, { includeValues: true });
    assert.equal(got.values?.n, 13);
    const updated = await client.threads.update("chain3", made.threadId, { threadMetadata: { user: "bob" }, ttl: 0 });
    assert.deepEqual(updated.metadata, { tag, user: "bob" });
    assert.equal(updated.ttl, null);
    const second = await client.threads.create("chain3", { threadId: `second-${tag}`, threadMetadata: { tag } });
    const first = await client.threads.search({ graph: "chain3", threadMetadata: { tag }, limit: 1 });
    assert.deepEqual(
      first.threads.map((t) => t.threadId),
      [second.threadId],
    );
    assert.ok(first.nextPageToken);
    const rest = await client.threads.search({
      graph: "chain3",
      threadMetadata: { tag },
      limit: 1,
      pageToken: first.nextPageToken,
    });
    assert.deepEqual(
      rest.threads.map((t) => t.threadId),
      [made.threadId],
    );
    assert.equal(await client.threads.count({ threadMetadata: { tag } }), 2);
    assert.equal(await client.threads.count({ threadMetadata: { tag, user: "bob" }, status: "idle" }), 1);
    const copy = await client.threads.copy("chain3", made.threadId);
    assert.deepEqual(copy.metadata, updated.metadata);
    assert.equal(
      (await client.history("chain3", copy.threadId)).length,
      (await client.history("chain3", made.threadId)).length,
    );
    assert.ok((await client.threads.prune("chain3", made.threadId)) > 0);
    assert.equal((await client.history("chain3", made.threadId)).length, 1);
    await client.threads.delete("chain3", copy.threadId);
    await assert.rejects(client.threads.get("chain3", copy.threadId), NotFoundError);
  });

  test("an interrupted thread carries its pending interrupts", async () => {
    const thread = `asked-${randomUUID().slice(0, 8)}`;
    await client.invoke("questions", thread, {}).result();
    const got = await client.threads.get("questions", thread);
    assert.equal(got.status, "interrupted");
    assert.deepEqual(
      got.interrupts.map((i) => i.value),
      ["first?"],
    );
    const found = await client.threads.search({ graph: "questions", status: ["interrupted"], threadIds: [thread] });
    assert.deepEqual(
      found.threads.map((t) => t.threadId),
      [thread],
    );
  });
});
