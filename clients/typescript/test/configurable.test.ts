/**
 * A run's `configurable` over gRPC (issue 32): the `seen` graph
 * (tests/configurable_graph.py) reports what its node, its chat model (a
 * configurable field) and its ToolNode tool see of `config["configurable"]`,
 * the thread id among it: the caller's, not the server's storage key. A key
 * the service owns is `InvalidArgumentError` naming it.
 * (tests/server/test_configurable.py does the same from Python.)
 */

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { Client, InvalidArgumentError, type StateValues } from "@graphwire/client";
import type { GraphwireServer } from "@graphwire/client/testing";

import { startGraphwire } from "./helpers.js";

interface Seen extends StateValues {
  seen: Record<string, unknown>[];
  messages: { content: string }[];
}

let server: GraphwireServer;

before(async () => {
  server = await startGraphwire({ args: ["--graph", "seen=tests.configurable_graph:graph"] });
});

after(async () => {
  await server?.stop();
});

describe("configurable", () => {
  test("reaches the node, the tool and the chat model, with the caller's thread id", async () => {
    const client = new Client(server.address);
    try {
      const configurable = { user_id: "ts-u1", model: "small", replies: ["hi from ts"] };
      const run = client.invoke<Seen>(
        "seen",
        "ts-user-7",
        { messages: [{ role: "user", content: "hi" }] },
        { configurable },
      );
      const result = await run.result();
      assert.equal(result.reason, "END");
      const values = result.values!;
      assert.deepEqual(values.seen, [{ where: "node", thread_id: "ts-user-7", user_id: "ts-u1", model: "small" }]);
      assert.equal(values.messages[1]?.content, "hi from ts");
      const tool = JSON.parse(values.messages[values.messages.length - 1]!.content) as Record<string, unknown>;
      assert.deepEqual(tool, { thread_id: "ts-user-7", user_id: "ts-u1", model: "small" });

      await client.updateState(
        "seen",
        "ts-user-7",
        { seen: [] },
        { asNode: "tools", configurable: { user_id: "ts-upd" } },
      );
      const [newest] = await client.history("seen", "ts-user-7", { limit: 1 });
      assert.equal(newest?.metadata["user_id"], "ts-upd");
    } finally {
      client.close();
    }
  });

  test("a key the service owns is refused, naming it", async () => {
    const client = new Client(server.address, { retry: false });
    try {
      for (const key of ["thread_id", "checkpoint_id", "checkpoint_ns", "checkpoint_map", "__pregel_runtime"]) {
        await assert.rejects(
          client.invoke("seen", "ts-reserved", { messages: [] }, { configurable: { [key]: "x" } }).result(),
          (e: unknown) => {
            assert.ok(e instanceof InvalidArgumentError, String(e));
            assert.match(e.message, new RegExp(`config\\.configurable_json\\.${key}: the key '${key}'`));
            return true;
          },
        );
      }
      assert.deepEqual(await client.history("seen", "ts-reserved"), []);
    } finally {
      client.close();
    }
  });
});
