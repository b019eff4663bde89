/**
 * The LangChain reminders agent (examples/reminders_langchain) through the
 * TypeScript client: tokens stream as message_chunk events while the model
 * writes them, the question arrives, the resume finishes the turn, history and
 * fork work, and messages arrive in LangChain's dict form and go back in
 * unchanged.
 */

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import {
  Client,
  FinishReason,
  messageRole,
  messageText,
  toolCalls,
  userMessage,
  type Message,
} from "@graphwire/client";
import type { GraphwireServer } from "@graphwire/client/testing";

import { startGraphwire } from "./helpers.js";

const GRAPH = "reminders_langchain";
const QUESTION = "Add a reminder to call mom at 5pm?";
const DONE = "Done: I'll remind you to call mom at 5pm.";

interface AgentState {
  messages: Message[];
  reminders: { text: string; at: string }[];
  [key: string]: unknown;
}

let server: GraphwireServer;
let client: Client;

before(async () => {
  server = await startGraphwire({ args: ["--graph", `${GRAPH}=examples.reminders_langchain:graph`] });
  client = new Client(server.address);
});

after(async () => {
  client?.close();
  await server?.stop();
});

describe("the LangChain reminders agent", () => {
  test("tokens, the question, the resume, history and fork", async () => {
    const first = await client
      .invoke<AgentState>(GRAPH, "lc-mom", { messages: [userMessage("remind me to call mom at 5pm")] })
      .result();
    assert.equal(first.reason, FinishReason.INTERRUPT);
    assert.equal(first.interrupts[0]?.value, QUESTION);
    assert.equal(first.interrupts[0]?.node, "ask_user");
    const asked = first.values!.messages.at(-1)!;
    assert.equal(asked.type, "ai");
    assert.equal(toolCalls(asked)[0]?.name, "add_reminder");

    const run = client.resume<AgentState>(GRAPH, "lc-mom", "yes", { eventKinds: ["message_chunk"] });
    const tokens: string[] = [];
    for await (const event of run) {
      if (event.kind === "message_chunk" && event.node === "model") {
        assert.equal(event.chunk["type"], "AIMessageChunk");
        tokens.push(event.text);
      }
    }
    const done = await run.result();
    assert.equal(done.reason, FinishReason.END);
    assert.ok(tokens.length > 3, "the reply came word by word");
    assert.equal(tokens.join(""), DONE);
    const reply = done.values!.messages.at(-1)!;
    assert.equal(messageRole(reply), "assistant");
    assert.equal(messageText(reply), DONE);
    for (const key of ["type", "content", "id", "tool_calls", "additional_kwargs", "response_metadata"]) {
      assert.ok(key in reply, `LangChain's dict form has ${key}`);
    }
    assert.deepEqual(done.values!.reminders, [{ text: "call mom", at: "5pm" }]);

    const history = await client.history<AgentState>(GRAPH, "lc-mom");
    const beforeReply = history.find((h) => h.next[0] === "model" && h.values.messages.at(-1)?.type === "tool");
    assert.ok(beforeReply, "the version before the reply is in the history");
    const forked = await client.fork<AgentState>(GRAPH, "lc-mom", beforeReply.checkpoint.checkpointId).result();
    assert.equal(forked.reason, FinishReason.END);
    assert.equal(messageText(forked.values!.messages.at(-1)!), DONE);
    assert.notEqual(forked.values!.messages.at(-1)!.id, reply.id, "a regenerated reply");
  });

  test("a message that came out goes back in unchanged", async () => {
    const done = await client
      .invoke<AgentState>(GRAPH, "lc-weather", { messages: [userMessage("weather in Oslo")] })
      .result();
    const messages = done.values!.messages;
    const copied = await client
      .invoke<AgentState>(GRAPH, "lc-weather-copy", { messages: messages.slice(0, -1) })
      .result();
    assert.deepEqual(copied.values!.messages.slice(0, messages.length - 1), messages.slice(0, -1));
  });
});
