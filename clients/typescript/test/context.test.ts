/**
 * A run's context over gRPC: the `user_memories` graph (tests/graphs.py) takes the
 * user from the run's context (`context_schema` with `user_id` and `locale`), never
 * from the state. The client passes it per call and reads the user's memories
 * through the store RPCs; a context that does not fit the schema is
 * `InvalidArgumentError` naming the field. (tests/e2e/test_context_memories.py
 * does the same from Python.)
 */

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { Client, InvalidArgumentError, type StateValues } from "@graphwire/client";
import type { GraphwireServer } from "@graphwire/client/testing";

import { startGraphwire } from "./helpers.js";

interface TurnState extends StateValues {
  known: string[];
  greeting: string;
}

let server: GraphwireServer;

before(async () => {
  server = await startGraphwire({ args: ["--graph", "user_memories=tests.graphs:user_memories"] });
});

after(async () => {
  await server?.stop();
});

describe("context", () => {
  test("each call passes its own context; the node reads the user's memories", async () => {
    const client = new Client(server.address);
    try {
      await client.store.putItem(["memories", "ts-ada"], "profile", { text: "is called Ada" });
      const ada = await client
        .invoke<TurnState>("user_memories", "ts-t1", { fact: "likes tea" }, { context: { user_id: "ts-ada" } })
        .result();
      assert.equal(ada.reason, "END");
      assert.deepEqual(ada.values?.known, ["is called Ada", "likes tea"]);
      assert.equal(ada.values?.greeting, "hello ts-ada");
      assert.equal(ada.values?.user_id, undefined, "the context is not state");

      const bob = await client
        .invoke<TurnState>(
          "user_memories",
          "ts-t1",
          { fact: "likes coffee" },
          { context: { user_id: "ts-bob", locale: "fr" } },
        )
        .result();
      assert.deepEqual(bob.values?.known, ["likes coffee"]);
      assert.equal(bob.values?.greeting, "bonjour ts-bob");
      const items = await client.store.searchItems<{ text: string; by: string }>(["memories", "ts-bob"]);
      assert.deepEqual(
        items.map((i) => [i.value.text, i.value.by]),
        [["likes coffee", "node"]],
      );
    } finally {
      client.close();
    }
  });

  test("a context that does not fit the schema names the field, and nothing runs", async () => {
    const client = new Client(server.address);
    try {
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ locale: "fr" }, /^config\.context_json\.user_id: is required/],
        [{ user_id: "x", mood: "happy" }, /^config\.context_json\.mood: is not a field/],
        [{ user_id: 7 }, /^config\.context_json\.user_id: must be a string/],
      ];
      for (const [context, message] of cases) {
        await assert.rejects(
          client.invoke("user_memories", "ts-t2", { fact: "never stored" }, { context }).result(),
          (e: unknown) => {
            assert.ok(e instanceof InvalidArgumentError, String(e));
            assert.match(e.message, message);
            return true;
          },
        );
      }
      assert.deepEqual(await client.history("user_memories", "ts-t2"), []);
    } finally {
      client.close();
    }
  });
});
