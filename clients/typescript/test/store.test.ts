/**
 * The store over gRPC: a user's memories written by the client and read by
 * a node, written by a node and read by the client; errors; tenants.
 *
 * The server runs `tests.graphs:memories`: its node stores the input's
 * `fact` under ["memories", user_id] and returns every memory's text there.
 */

import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import {
  Client,
  FailedPreconditionError,
  InvalidArgumentError,
  UnauthenticatedError,
  type Item,
  type StateValues,
} from "@graphwire/client";
import type { GraphwireServer } from "@graphwire/client/testing";

import { startGraphwire } from "./helpers.js";

interface Memory {
  text: string;
  by: string;
}

interface MemoryState extends StateValues {
  user_id: string;
  known: string[];
}

const ACME = "acme-token-0123456789";
const GLOBEX = "globex-token-0123456789";
let server: GraphwireServer;
let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "graphwire-store-test-"));
  const tokens = join(dir, "tokens.toml");
  await writeFile(tokens, `acme = "${ACME}"\nglobex = "${GLOBEX}"\n`);
  server = await startGraphwire({ args: ["--graph", "memories=tests.graphs:memories", "--auth-tokens", tokens] });
});

after(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

function texts(items: Item<Memory>[]): string[] {
  return items.map((i) => i.value.text);
}

describe("store", () => {
  test("a node sees what the client wrote, and the client what the node wrote", async () => {
    const client = new Client(server.address, { token: ACME });
    try {
      const ns = ["memories", "ts-user"];
      await client.store.putItem(ns, "tea", { text: "likes tea", by: "client" });
      const result = await client
        .invoke<MemoryState>("memories", "ts-t1", { user_id: "ts-user", fact: "lives in Oslo" })
        .result();
      assert.equal(result.reason, "END");
      assert.deepEqual(result.values?.known, ["likes tea", "lives in Oslo"], "the node read the client's memory");

      const found = await client.store.searchItems<Memory>(ns);
      assert.deepEqual(texts(found), ["likes tea", "lives in Oslo"]);
      const byNode = found.find((i) => i.value.by === "node");
      assert.ok(byNode, "the client reads the node's memory");
      assert.deepEqual(byNode.namespace, ns);
      assert.ok(byNode.createdAt instanceof Date && byNode.updatedAt >= byNode.createdAt);
      assert.equal(byNode.score, null);

      const got = await client.store.getItem<Memory>(ns, byNode.key);
      assert.equal(got?.value.text, "lives in Oslo");
      assert.deepEqual(texts(await client.store.searchItems<Memory>(ns, { filter: { by: "client" } })), ["likes tea"]);
      assert.deepEqual(await client.store.listNamespaces({ prefix: ["memories"] }), [ns]);

      assert.equal(await client.store.deleteItem(ns, "tea"), true);
      assert.equal(await client.store.deleteItem(ns, "tea"), false);
      assert.equal(await client.store.getItem(ns, "tea"), null);
      const next = await client.invoke<MemoryState>("memories", "ts-t2", { user_id: "ts-user" }).result();
      assert.deepEqual(next.values?.known, ["lives in Oslo"], "the node no longer sees the deleted memory");
    } finally {
      client.close();
    }
  });

  test("bad requests name the field; a query needs an index", async () => {
    const client = new Client(server.address, { token: ACME });
    try {
      await assert.rejects(client.store.putItem(["a.b"], "k", { v: 1 }), (e: unknown) => {
        assert.ok(e instanceof InvalidArgumentError);
        assert.match(e.message, /^namespace: .*periods/);
        return true;
      });
      await assert.rejects(
        client.store.searchItems(["memories"], { filter: { n: { $near: 1 } } }),
        /filter_json: Unsupported operator/,
      );
      await assert.rejects(client.store.getItem(["memories"], ""), /key: required/);
      await assert.rejects(client.store.searchItems(["memories"], { query: "tea" }), FailedPreconditionError);
      await assert.rejects(client.store.searchItems(["m"], { limit: -1 }), RangeError);
    } finally {
      client.close();
    }
  });

  test("each tenant sees only its own memories", async () => {
    const acme = new Client(server.address, { token: ACME });
    const globex = new Client(server.address, { token: GLOBEX });
    const anonymous = new Client(server.address);
    try {
      await acme.store.putItem(["memories", "shared"], "k", { text: "acme's", by: "client" });
      assert.equal(await globex.store.getItem(["memories", "shared"], "k"), null);
      assert.deepEqual(await globex.store.searchItems([]), []);
      assert.deepEqual(await globex.store.listNamespaces(), []);
      const run = await globex.invoke<MemoryState>("memories", "ts-t3", { user_id: "shared" }).result();
      assert.deepEqual(run.values?.known, [], "globex's node does not see acme's memory");
      assert.equal((await acme.store.getItem<Memory>(["memories", "shared"], "k"))?.value.text, "acme's");
      await assert.rejects(anonymous.store.listNamespaces(), UnauthenticatedError);
    } finally {
      acme.close();
      globex.close();
      anonymous.close();
    }
  });
});
