// LangGraph's JavaScript SDK (@langchain/langgraph-sdk), unchanged, against `graphwire serve --http`.
// tests/http/test_node_sdk.py starts the server and passes its URL in GRAPHWIRE_HTTP_URL.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Client } from "@langchain/langgraph-sdk";

const url = process.env.GRAPHWIRE_HTTP_URL;
assert.ok(url, "GRAPHWIRE_HTTP_URL is the server's HTTP address");
const client = new Client({ apiUrl: url });
const GRAPH = "reminders_langchain";
const QUESTION = "Add a reminder to call mom at 5pm?";
const DONE = "Done: I'll remind you to call mom at 5pm.";
const MODES = ["messages-tuple", "values"];

const text = (message) =>
  typeof message.content === "string" ? message.content : (message.content ?? []).map((b) => b.text ?? "").join("");

async function collect(stream) {
  const parts = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

test("assistants are searched by graph", async () => {
  const found = await client.assistants.search({ graphId: GRAPH });
  assert.ok(found.length >= 1);
  assert.ok(found.every((a) => a.graph_id === GRAPH));
});

test("a chat turn streamed in messages-tuple and values, its interrupt answered with command.resume, then its history", async () => {
  const thread = await client.threads.create({ graphId: GRAPH });
  const ask = { messages: [{ role: "user", content: "remind me to call mom at 5pm" }] };
  const first = await collect(client.runs.stream(thread.thread_id, GRAPH, { input: ask, streamMode: MODES }));
  assert.equal(first[0].event, "metadata");
  const asked = first.filter((p) => p.event === "values").at(-1).data;
  assert.deepEqual(asked.__interrupt__.map((i) => i.value), [QUESTION]);
  const call = asked.messages.at(-1);
  assert.equal(call.type, "ai");
  assert.equal(call.tool_calls[0].name, "add_reminder");

  const second = await collect(
    client.runs.stream(thread.thread_id, GRAPH, { command: { resume: "yes" }, streamMode: MODES }),
  );
  const tokens = second.filter((p) => p.event === "messages" && p.data[1].langgraph_node === "model");
  assert.ok(tokens.length > 3);
  assert.equal(tokens.map((p) => text(p.data[0])).join(""), DONE);
  const final = second.filter((p) => p.event === "values").at(-1).data;
  assert.equal(text(final.messages.at(-1)), DONE);
  assert.deepEqual(final.reminders, [{ text: "call mom", at: "5pm" }]);

  const history = await client.threads.getHistory(thread.thread_id);
  assert.ok(history.length > 2);
  assert.deepEqual(history[0].values.reminders, [{ text: "call mom", at: "5pm" }]);
  assert.equal(history[0].parent_checkpoint.checkpoint_id, history[1].checkpoint.checkpoint_id);
  assert.equal((await client.threads.get(thread.thread_id)).status, "idle");
});

test("the events stream mode with run tags, then a delayed run answered pending and joined", async () => {
  const thread = await client.threads.create({ graphId: GRAPH });
  const ask = { messages: [{ role: "user", content: "remind me to call mom at 5pm" }] };
  const parts = await collect(
    client.runs.stream(thread.thread_id, GRAPH, { input: ask, streamMode: ["events", "values"], config: { tags: ["from-node"] } }),
  );
  const events = parts.filter((p) => p.event === "events").map((p) => p.data);
  assert.equal(events[0].event, "on_chain_start");
  assert.equal(events[0].name, GRAPH);
  assert.equal(events[0].run_id, parts[0].data.run_id);
  assert.ok(events.some((e) => e.event === "on_chat_model_stream"));
  assert.ok(events.every((e) => e.tags.includes("from-node")));
  assert.deepEqual(parts.filter((p) => p.event === "values").at(-1).data.__interrupt__.map((i) => i.value), [QUESTION]);

  const later = await client.runs.create(thread.thread_id, GRAPH, { command: { resume: "yes" }, afterSeconds: 1 });
  assert.equal(later.status, "pending");
  const joined = await client.runs.join(thread.thread_id, later.run_id);
  assert.deepEqual(joined.reminders, [{ text: "call mom", at: "5pm" }]);
  assert.equal((await client.runs.get(thread.thread_id, later.run_id)).status, "success");
});

test("a run on a thread never created is 404, as on LangGraph's server", async () => {
  await assert.rejects(client.runs.wait("00000000-0000-4000-8000-000000000000", GRAPH, { input: {} }), /404/);
});

test("store items are put and got", async () => {
  await client.store.putItem(["node", "notes"], "first", { text: "hello" });
  const item = await client.store.getItem(["node", "notes"], "first");
  assert.deepEqual(item.value, { text: "hello" });
  assert.deepEqual(item.namespace, ["node", "notes"]);
});
