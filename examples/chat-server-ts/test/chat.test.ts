/**
 * The chat server end to end: a browser's requests over HTTP, replies as
 * server-sent events, and a real graphwire server behind it.
 */

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import { Client } from "@graphwire/client";
import { startServer, type GraphwireServer } from "@graphwire/client/testing";

import { createChatServer, type ChatState } from "../dist/server.js";

const REPO_ROOT = ((): string => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "proto", "graphwire"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error("cannot find the repository root");
    dir = parent;
  }
  return dir;
})();

interface Stack {
  graphwire: GraphwireServer;
  client: Client;
  chat: Server;
  url: string;
}

/** A graphwire server and a chat server in front of it. */
async function startStack(forecastDelay: string): Promise<Stack> {
  const graphwire = await startServer({
    command: [process.env["GRAPHWIRE_PYTHON"] || "python3", "-m", "server", "serve"],
    cwd: REPO_ROOT,
    args: ["--grace", "2", "--log-level", "WARNING"],
    env: { GRAPHWIRE_FORECAST_DELAY: forecastDelay },
  });
  const client = new Client(graphwire.address);
  const chat = createChatServer({ client });
  await new Promise<void>((resolve) => chat.listen(0, "127.0.0.1", resolve));
  const { port } = chat.address() as AddressInfo;
  return { graphwire, client, chat, url: `http://127.0.0.1:${port}` };
}

async function stopStack(stack: Stack | undefined): Promise<void> {
  if (stack === undefined) return;
  stack.chat.closeAllConnections();
  await new Promise((resolve) => stack.chat.close(resolve));
  stack.client.close();
  await stack.graphwire.stop();
}

interface Sse {
  event: string;
  data: Record<string, unknown>;
}

/** Parses a whole text/event-stream body. */
function parseSse(body: string): Sse[] {
  return body
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const lines = block.split("\n");
      const event = lines.find((l) => l.startsWith("event: "))?.slice(7) ?? "message";
      const data = lines
        .filter((l) => l.startsWith("data: "))
        .map((l) => l.slice(6))
        .join("");
      return { event, data: JSON.parse(data) as Record<string, unknown> };
    });
}

/** A browser with a user id. */
function browser(stack: Stack, uid: string) {
  const headers = { cookie: `uid=${uid}`, "content-type": "application/json" };
  const post = (path: string, body?: unknown, signal?: AbortSignal): Promise<Response> =>
    fetch(stack.url + path, {
      method: "POST",
      headers,
      body: JSON.stringify(body ?? {}),
      ...(signal ? { signal } : {}),
    });
  return {
    post,
    /** A turn: the SSE events of a 200 response. */
    async turn(path: string, text?: string): Promise<Sse[]> {
      const response = await post(path, text === undefined ? {} : { text });
      const body = await response.text();
      assert.equal(response.status, 200, body);
      assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/);
      return parseSse(body);
    },
    async conversation(): Promise<{ messages: { role: string; content: string }[]; question: string | null }> {
      const response = await fetch(`${stack.url}/api/conversation`, { headers });
      assert.equal(response.status, 200);
      return (await response.json()) as { messages: { role: string; content: string }[]; question: string | null };
    },
  };
}

const streamed = (events: Sse[]): string =>
  events
    .filter((e) => e.event === "chunk")
    .map((e) => e.data["text"])
    .join("");
const done = (events: Sse[]): Record<string, unknown> | undefined => events.find((e) => e.event === "done")?.data;

describe("the chat server", () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack("0");
  });
  after(() => stopStack(stack));

  test("serves the page and gives a new browser a user id", async () => {
    const response = await fetch(`${stack.url}/`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^text\/html/);
    assert.match(await response.text(), /<form id="form">/);
    assert.match(response.headers.get("set-cookie") ?? "", /^uid=[0-9a-f-]{36};/);
  });

  test("shows the interrupt's question and sends the answer as a resume", async () => {
    const alice = browser(stack, "alice");
    const asked = await alice.turn("/api/chat", "remind me to call mom at 5pm");
    assert.deepEqual(
      asked.map((e) => e.event),
      ["start", "interrupt", "done"],
    );
    assert.equal(asked[1]?.data["question"], "Add a reminder to call mom at 5pm?");
    assert.equal(done(asked)?.["reason"], "INTERRUPT");
    assert.equal((await alice.conversation()).question, "Add a reminder to call mom at 5pm?");

    const answered = await alice.turn("/api/answer", "yes");
    assert.ok(answered.filter((e) => e.event === "chunk").length > 1, "the reply comes in pieces");
    assert.equal(streamed(answered), "Done: I'll remind you to call mom at 5pm.");
    assert.equal(done(answered)?.["reply"], "Done: I'll remind you to call mom at 5pm.");

    const conversation = await alice.conversation();
    assert.equal(conversation.question, null);
    assert.deepEqual(conversation.messages, [
      { role: "user", content: "remind me to call mom at 5pm" },
      { role: "assistant", content: "Done: I'll remind you to call mom at 5pm." },
    ]);
    const state = await stack.client.getState<ChatState>("reminders", "user-alice");
    assert.deepEqual(state.values["reminders"], [{ text: "call mom", at: "5pm" }], "one thread per user");
  });

  test("answering when nothing was asked is an HTTP error carrying the gRPC code", async () => {
    const response = await browser(stack, "alice").post("/api/answer", { text: "yes" });
    assert.equal(response.status, 409);
    assert.equal(((await response.json()) as { error: { code: string } }).error.code, "FAILED_PRECONDITION");
    const nobody = await browser(stack, "nobody").post("/api/answer", { text: "yes" });
    assert.equal(nobody.status, 404);
    const empty = await browser(stack, "alice").post("/api/chat", { text: "  " });
    assert.equal(empty.status, 400);
  });

  test("two users at once keep their own threads", async () => {
    const bob = browser(stack, "bob");
    const carol = browser(stack, "carol");
    const [bobs, carols] = await Promise.all([
      bob.turn("/api/chat", "weather in Oslo"),
      carol.turn("/api/chat", "hello"),
    ]);
    assert.match(streamed(bobs), /^The forecast for Oslo: /);
    assert.equal(
      streamed(carols),
      'You said: hello. I understand "remind me to <what> at <when>" (I ask before adding it) and "weather in <city>".',
    );
    assert.deepEqual(
      (await bob.conversation()).messages.map((m) => m.content),
      ["weather in Oslo", streamed(bobs)],
    );
    assert.deepEqual(
      (await carol.conversation()).messages.map((m) => m.content),
      ["hello", streamed(carols)],
    );
  });

  test("regenerate forks from the version before the last reply", async () => {
    const dave = browser(stack, "dave");
    await dave.turn("/api/chat", "hello");
    const second = await dave.turn("/api/chat", "weather in Bergen");
    const before = await stack.client.getState<ChatState>("reminders", "user-dave");

    const again = await dave.turn("/api/regenerate");
    assert.equal(streamed(again), streamed(second), "the scripted model writes the same reply");
    assert.equal(done(again)?.["reason"], "END");

    const after = await stack.client.getState<ChatState>("reminders", "user-dave");
    assert.equal(after.values.messages?.length, before.values.messages?.length, "the reply was replaced, not added");
    assert.notEqual(after.values.messages?.at(-1)?.id, before.values.messages?.at(-1)?.id);
    assert.deepEqual(after.values.messages?.slice(0, -1), before.values.messages?.slice(0, -1));
    const history = await stack.client.history("reminders", "user-dave");
    const fork = history.find((s) => s.checkpoint.source === "fork");
    assert.ok(fork, "a fork version starts the new branch");
    assert.deepEqual(fork.next, ["model"], "forked from just before the model wrote the reply");
    assert.ok(
      history.some((s) => s.checkpoint.checkpointId === before.checkpoint.checkpointId),
      "the old branch stays",
    );
  });

  test("regenerate with nothing to regenerate, or with a question pending, is refused", async () => {
    const erin = browser(stack, "erin");
    assert.equal((await erin.post("/api/regenerate")).status, 409);
    await erin.turn("/api/chat", "remind me to call mom at 5pm");
    const pending = await erin.post("/api/regenerate");
    assert.equal(pending.status, 409);
    assert.equal(((await pending.json()) as { error: { code: string } }).error.code, "QUESTION_PENDING");
  });

  test("reset starts a new conversation", async () => {
    const frank = browser(stack, "frank");
    await frank.turn("/api/chat", "hello");
    assert.equal((await frank.post("/api/reset")).status, 204);
    assert.deepEqual((await frank.conversation()).messages, []);
  });
});

describe("a browser that goes away", () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack("60"); // the forecast waits until cancelled
  });
  after(() => stopStack(stack));

  test("cancels its turn's run, and the thread takes the next one", { timeout: 30_000 }, async () => {
    const gina = browser(stack, "gina");
    const page = new AbortController();
    const response = await gina.post("/api/chat", { text: "weather in Oslo" }, page.signal);
    assert.equal(response.status, 200, "the stream started");
    page.abort();
    await response.body?.cancel().catch(() => {});

    // Only a cancelled run lets this one in before the forecast's 60 s.
    const next = await stack.client
      .invoke<ChatState>(
        "reminders",
        "user-gina",
        { messages: [{ role: "user", content: "hello" }] },
        { enqueue: true },
      )
      .result();
    assert.equal(next.reason, "END");
    assert.equal(
      next.values?.messages?.at(-1)?.content,
      'You said: hello. I understand "remind me to <what> at <when>" (I ask before adding it) and "weather in <city>".',
    );
  });
});
