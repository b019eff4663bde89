/**
 * Assistants over gRPC (issue 33 item 5): versions, search, runs that name
 * one, tenants. (tests/server/test_assistants.py does the same from Python.)
 *
 * The server runs `seen` (tests/configurable_graph.py: its `look` node
 * reports the run's `configurable`; `skip_model` ends the run there),
 * `user_memories` (tests/graphs.py: greets `context.user_id` in
 * `context.locale`) and `questions` (two nodes that each ask), with two
 * tenants' tokens.
 */

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import {
  AlreadyExistsError,
  Client,
  InvalidArgumentError,
  NotFoundError,
  PermissionDeniedError,
  type StateValues,
} from "@graphwire/client";
import type { GraphwireServer } from "@graphwire/client/testing";

import { startGraphwire } from "./helpers.js";

/** The default assistants' ids: LangGraph's Agent Server's (a UUID 5 of the graph's name). */
const DEFAULT_SEEN = "709edb79-9ca1-55be-b3f7-f9bc9529293a";
const DEFAULT_USER_MEMORIES = "049cefaf-bf5e-5fab-ab67-cf76bd0767c7";
const DEFAULT_QUESTIONS = "824023b5-7c63-51fa-bcef-dab47c6d45d3";

interface Seen extends StateValues {
  seen: Record<string, unknown>[];
}

interface Turn extends StateValues {
  greeting: string;
}

const ACME = "acme-token-0123456789";
const GLOBEX = "globex-token-0123456789";
let server: GraphwireServer;
let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "graphwire-assistants-test-"));
  const tokens = join(dir, "tokens.toml");
  await writeFile(tokens, `acme = "${ACME}"\nglobex = "${GLOBEX}"\n`);
  server = await startGraphwire({
    args: [
      ...["--graph", "seen=tests.configurable_graph:graph"],
      ...["--graph", "user_memories=tests.graphs:user_memories"],
      ...["--graph", "questions=tests.graphs:questions"],
      ...["--auth-tokens", tokens],
    ],
  });
});

after(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Metadata no other test's assistants have. */
function mark(): { test: string } {
  return { test: randomUUID() };
}

describe("assistants", () => {
  test("each graph has its default assistant, with LangGraph's id", async () => {
    const client = new Client(server.address, { token: ACME });
    try {
      const found = await client.assistants.search({ metadata: { created_by: "system" }, sortBy: "graph_id" });
      assert.deepEqual(
        found.map((a) => [a.graph, a.assistantId]),
        [
          ["user_memories", DEFAULT_USER_MEMORIES],
          ["seen", DEFAULT_SEEN],
          ["questions", DEFAULT_QUESTIONS],
        ],
      );
      const seen = await client.assistants.get(DEFAULT_SEEN);
      assert.deepEqual(
        [seen.name, seen.version, seen.config, seen.context, seen.metadata, seen.description],
        ["seen", 1, {}, {}, { created_by: "system" }, null],
      );
      assert.ok(seen.createdAt instanceof Date && seen.createdAt.getTime() > 0);
    } finally {
      client.close();
    }
  });

  test("create, update, versions, setLatest, search, count and delete", async () => {
    const client = new Client(server.address, { token: ACME });
    const m = mark();
    try {
      const made = await client.assistants.create("seen", {
        config: { configurable: { model: "v1" } },
        context: { user: "u" },
        metadata: m,
        name: "Looker",
      });
      assert.deepEqual(
        [made.version, made.name, made.description, made.config, made.context, made.metadata],
        [1, "Looker", null, { configurable: { model: "v1" } }, { user: "u" }, m],
      );
      await assert.rejects(client.assistants.create("seen", { assistantId: made.assistantId }), AlreadyExistsError);
      const same = await client.assistants.create("questions", {
        assistantId: made.assistantId,
        ifExists: "do_nothing",
      });
      assert.deepEqual(same, made);

      const v2 = await client.assistants.update(made.assistantId, {
        config: { configurable: { model: "v2" } },
        metadata: { tier: 2 },
        description: "d",
      });
      assert.deepEqual(
        [v2.version, v2.config, v2.metadata, v2.description, v2.name],
        [2, { configurable: { model: "v2" } }, { ...m, tier: 2 }, "d", "Looker"],
      );
      assert.deepEqual(v2.createdAt, made.createdAt);
      assert.ok(v2.updatedAt >= made.updatedAt);
      const versions = await client.assistants.getVersions(made.assistantId);
      assert.deepEqual(
        versions.map((v) => v.version),
        [2, 1],
      );
      const tiered = await client.assistants.getVersions(made.assistantId, { metadata: { tier: 2 } });
      assert.deepEqual(
        tiered.map((v) => v.version),
        [2],
      );

      const back = await client.assistants.setLatest(made.assistantId, 1);
      assert.equal(back.version, 1);
      assert.deepEqual((await client.assistants.get(made.assistantId)).config, { configurable: { model: "v1" } });
      await assert.rejects(client.assistants.setLatest(made.assistantId, 9), NotFoundError);

      assert.deepEqual(await client.assistants.search({ metadata: m }), [back]);
      assert.equal(await client.assistants.count({ metadata: m }), 1);
      assert.equal(await client.assistants.count({ metadata: m, graph: "questions" }), 0);
      assert.equal(await client.assistants.delete(made.assistantId), true);
      assert.equal(await client.assistants.delete(made.assistantId), false);
      await assert.rejects(client.assistants.get(made.assistantId), NotFoundError);
    } finally {
      client.close();
    }
  });

  test("search filters by name, sorts and pages", async () => {
    const client = new Client(server.address, { token: ACME });
    const m = mark();
    try {
      const ids: string[] = [];
      for (const i of [0, 1, 2, 3]) {
        ids.push((await client.assistants.create("questions", { metadata: m, name: `Pager ${i}` })).assistantId);
      }
      const newestFirst = await client.assistants.search({ metadata: m });
      assert.deepEqual(
        newestFirst.map((a) => a.assistantId),
        [...ids].reverse(),
      );
      const page = await client.assistants.search({
        metadata: m,
        sortBy: "name",
        sortOrder: "asc",
        limit: 2,
        offset: 1,
      });
      assert.deepEqual(
        page.map((a) => a.name),
        ["Pager 1", "Pager 2"],
      );
      const named = await client.assistants.search({ metadata: m, name: "pager 3" });
      assert.deepEqual(
        named.map((a) => a.assistantId),
        [ids[3]],
      );
    } finally {
      client.close();
    }
  });

  test("bad requests name the field, before sending or from the server", async () => {
    const client = new Client(server.address, { token: ACME });
    try {
      await assert.rejects(client.assistants.create("nope"), (e: unknown) => {
        assert.ok(e instanceof NotFoundError);
        assert.match(e.message, /unknown graph 'nope'/);
        return true;
      });
      await assert.rejects(
        client.assistants.create("seen", { config: { configurable: { thread_id: "t" } } }),
        (e: unknown) => e instanceof InvalidArgumentError && /config_json\.configurable\.thread_id/.test(e.message),
      );
      const made = await client.assistants.create("seen", { metadata: mark() });
      await assert.rejects(client.assistants.update(made.assistantId, {}), /sets nothing/);
      await assert.rejects(client.assistants.update("no-such-assistant", { name: "x" }), NotFoundError);
      await assert.rejects(client.assistants.setLatest(made.assistantId, 0), RangeError);
      await assert.rejects(
        client.assistants.create("seen", { metadata: [] as unknown as Record<string, unknown> }),
        TypeError,
      );
      await assert.rejects(client.assistants.search({ sortBy: "size" as "name" }), /unknown sortBy "size"/);
      await assert.rejects(client.assistants.search({ limit: -1 }), RangeError);
    } finally {
      client.close();
    }
  });

  test("a run naming an assistant takes its config and context as defaults; the call's values win", async () => {
    const client = new Client(server.address, { token: ACME });
    const thread = `ts-assist-${randomUUID()}`;
    try {
      const looker = await client.assistants.create("seen", {
        config: { configurable: { user_id: "from-assistant", model: "big", skip_model: true } },
        metadata: mark(),
      });
      const plain = await client
        .invoke<Seen>("", thread, { messages: [] }, { assistantId: looker.assistantId })
        .result();
      assert.equal(plain.reason, "END");
      assert.deepEqual(plain.values?.seen, [
        { where: "node", thread_id: thread, user_id: "from-assistant", model: "big" },
      ]);
      const mine = await client
        .invoke<Seen>(
          "seen",
          `${thread}-2`,
          { messages: [] },
          {
            assistantId: looker.assistantId,
            configurable: { model: "small" },
          },
        )
        .result();
      assert.deepEqual(mine.values?.seen, [
        { where: "node", thread_id: `${thread}-2`, user_id: "from-assistant", model: "small" },
      ]);
      const history = await client.history("seen", thread);
      assert.deepEqual(new Set(history.map((s) => s.metadata["assistant_id"])), new Set([looker.assistantId]));

      const greeter = await client.assistants.create("user_memories", {
        context: { user_id: "ada", locale: "fr" },
        metadata: mark(),
      });
      const greeted = await client
        .invoke<Turn>("", `${thread}-3`, {}, { assistantId: greeter.assistantId, context: { locale: "no" } })
        .result();
      assert.equal(
        greeted.values?.greeting,
        "hei ada",
        "context merged key by key: the call's locale, the assistant's user",
      );
      const byName = await client
        .invoke<Turn>("", `${thread}-4`, {}, { assistantId: "user_memories", context: { user_id: "bo" } })
        .result();
      assert.equal(byName.values?.greeting, "hello bo", "a graph's name stands for its default assistant");

      await assert.rejects(
        client.invoke("questions", thread, {}, { assistantId: looker.assistantId }).result(),
        (e: unknown) => e instanceof InvalidArgumentError && /runs graph/.test(e.message),
      );
      await assert.rejects(client.invoke("", thread, {}, { assistantId: "missing" }).result(), /no assistant/);
    } finally {
      client.close();
    }
  });

  test("a resume and a fork name the assistant too", async () => {
    const client = new Client(server.address, { token: ACME });
    const thread = `ts-assist-q-${randomUUID()}`;
    try {
      const asker = await client.assistants.create("questions", { config: { recursion_limit: 50 }, metadata: mark() });
      const options = { assistantId: asker.assistantId };
      const paused = await client.invoke("", thread, {}, options).result();
      assert.equal(paused.reason, "INTERRUPT");
      const next = await client.resume("", thread, "yes", options).result();
      assert.equal(next.reason, "INTERRUPT");
      assert.deepEqual(next.values?.["log"], ["first:yes"]);
      const history = await client.history("questions", thread);
      const first = history.at(-1)!;
      const forked = await client.fork("", thread, first.checkpoint.checkpointId, options).result();
      assert.equal(forked.reason, "INTERRUPT");
      const after = await client.history("questions", thread);
      assert.ok(after.length > history.length);
      assert.deepEqual(new Set(after.map((s) => s.metadata["assistant_id"])), new Set([asker.assistantId]));
    } finally {
      client.close();
    }
  });

  test("each tenant has its own assistants and shares the defaults, which none may change", async () => {
    const acme = new Client(server.address, { token: ACME });
    const globex = new Client(server.address, { token: GLOBEX });
    try {
      const id = `ts-shared-${randomUUID()}`;
      await acme.assistants.create("seen", { assistantId: id, name: "Acme's" });
      await assert.rejects(globex.assistants.get(id), NotFoundError);
      const theirs = await globex.assistants.create("seen", { assistantId: id, name: "Globex's" });
      assert.equal(theirs.name, "Globex's");
      assert.equal((await acme.assistants.get(id)).name, "Acme's");
      assert.equal((await globex.assistants.get(DEFAULT_SEEN)).graph, "seen");
      await assert.rejects(globex.assistants.update(DEFAULT_SEEN, { name: "taken over" }), PermissionDeniedError);
      await assert.rejects(globex.assistants.delete(DEFAULT_SEEN), PermissionDeniedError);
      assert.equal(await acme.assistants.delete(id), true);
      assert.equal((await globex.assistants.get(id)).name, "Globex's");
    } finally {
      acme.close();
      globex.close();
    }
  });
});
