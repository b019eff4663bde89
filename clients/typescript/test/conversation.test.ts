/**
 * Conversations with the reminders example over a real server: the
 * interrupt and its answer, the slow tool, what a run streams, how runs end.
 */

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { Client, FinishReason, NotFoundError, messageRole, type RunEvent } from "@graphwire/client";
import type { GraphwireServer } from "@graphwire/client/testing";

import { forecastText, lastMessage, startGraphwire, user, type ReminderState } from "./helpers.js";

const QUESTION = "Add a reminder to call mom at 5pm?";
const DONE = "Done: I'll remind you to call mom at 5pm.";

let server: GraphwireServer;
let client: Client;

before(async () => {
  server = await startGraphwire({
    args: ["--graph", "reminders=examples.reminders:graph", "--graph", "other=examples.reminders:graph"],
  });
  client = new Client(server.address);
});

after(async () => {
  client?.close();
  await server?.stop();
});

describe("the reminders conversation", () => {
  test("asks before adding a reminder, and the answer resumes the run", async () => {
    const run = client.invoke<ReminderState>("reminders", "mom", user("remind me to call mom at 5pm"));
    const events: RunEvent<ReminderState>[] = [];
    for await (const event of run) events.push(event);

    assert.equal(events[0]?.kind, "run_started");
    assert.equal(events.at(-1)?.kind, "run_finished");
    const seqs = events.map((e) => e.seq);
    assert.deepEqual(
      seqs,
      seqs.map((_, i) => i + 1),
      "unfiltered: seq counts every event from 1",
    );
    assert.ok(events.every((e) => e.runId === events[0]!.runId));
    const question = events.find((e) => e.kind === "interrupt");
    assert.equal(question?.kind === "interrupt" && question.value, QUESTION);
    assert.ok(
      events.some((e) => e.kind === "custom" && e.node === "ask_user"),
      "ask_user writes a custom event",
    );

    const result = await run.result();
    assert.equal(result.reason, FinishReason.INTERRUPT);
    assert.equal(result.interrupted, true);
    assert.equal(result.threadId, "mom");
    assert.equal(result.interrupts.length, 1);
    assert.equal(result.interrupts[0]!.value, QUESTION);
    assert.equal(result.interrupts[0]!.node, "ask_user");
    assert.deepEqual(result.checkpoint?.next, ["ask_user"]);
    assert.deepEqual(result.events, events);

    const state = await client.getState<ReminderState>("reminders", "mom");
    assert.deepEqual(state.next, ["ask_user"]);
    assert.equal(state.interrupts[0]?.interruptId, result.interrupts[0]!.interruptId);
    assert.equal(state.checkpoint.checkpointId, result.checkpoint?.checkpointId);
    assert.ok(state.checkpoint.createdAt instanceof Date);

    const resumed = client.resume<ReminderState>("reminders", "mom", "yes", { eventKinds: ["message_chunk"] });
    let streamed = "";
    const kinds = new Set<string>();
    for await (const event of resumed) {
      kinds.add(event.kind);
      if (event.kind === "message_chunk") streamed += event.text;
    }
    assert.deepEqual([...kinds].sort(), ["message_chunk", "run_finished", "run_started"]);
    assert.equal(streamed, DONE);
    const done = await resumed.result();
    assert.equal(done.reason, FinishReason.END);
    assert.equal(done.interrupted, false);
    assert.equal(lastMessage(done.values).content, DONE);
    assert.deepEqual(done.values?.reminders, [{ text: "call mom", at: "5pm" }]);
    assert.deepEqual(done.checkpoint?.next, []);
  });

  test("answering no adds nothing", async () => {
    const first = await client.invoke("reminders", "no-thanks", user("remind me to call mom at 5pm")).result();
    assert.equal(first.interrupts[0]?.value, QUESTION);
    const done = await client.resume<ReminderState>("reminders", "no-thanks", "no").result();
    assert.equal(done.reason, "END");
    assert.equal(lastMessage(done.values).content, "OK, I won't remind you to call mom.");
    assert.deepEqual(done.values?.reminders, []);
  });

  test("an interrupt can be answered by its id", async () => {
    const first = await client.invoke("reminders", "by-id", user("remind me to call mom at 5pm")).result();
    const id = first.interrupts[0]!.interruptId;
    const done = await client.resume("reminders", "by-id", undefined, { resumes: { [id]: "yes" } }).result();
    assert.equal(lastMessage(done.values).content, DONE);
    assert.throws(
      () => client.resume("reminders", "by-id", "yes", { resumes: { [id]: "yes" } }),
      TypeError,
      "an answer and resumes together are refused before sending",
    );
  });

  test("the slow forecast tool's answer becomes the reply", async () => {
    const run = client.invoke<ReminderState>("reminders", "oslo", user("weather in Oslo"), { eventKinds: ["values"] });
    const steps: number[] = [];
    for await (const event of run) if (event.kind === "values") steps.push(event.step);
    const result = await run.result();
    assert.equal(result.reason, "END");
    assert.equal(lastMessage(result.values).content, forecastText("Oslo"));
    assert.deepEqual(
      steps,
      [...steps].sort((a, b) => a - b),
      "values come step by step",
    );
    const tool = result.values?.messages.find((m) => messageRole(m) === "tool");
    assert.equal(tool?.content, forecastText("Oslo"));
  });

  test("a static breakpoint stops before a node, and invoking with no input goes on", async () => {
    const paused = await client
      .invoke("reminders", "breakpoint", user("hello"), { interruptBefore: ["model"] })
      .result();
    assert.equal(paused.reason, "INTERRUPT");
    assert.deepEqual(paused.interrupts, []);
    assert.deepEqual(paused.checkpoint?.next, ["model"]);
    const done = await client.invoke("reminders", "breakpoint", null).result();
    assert.equal(done.reason, "END");
    assert.match(String(lastMessage(done.values).content), /^You said: hello\./);
  });
});

describe("how runs end", () => {
  test("a node that raises ends the run with reason ERROR, not a thrown error", async () => {
    // A tool call without arguments: ask_user reads call["args"]["text"] and raises.
    const broken = {
      messages: [
        { role: "user", content: "remind me" },
        { role: "assistant", content: "", id: "m-1", tool_calls: [{ id: "c-1", name: "add_reminder", args: {} }] },
      ],
    };
    const written = await client.updateState("reminders", "broken", broken, { asNode: "model" });
    assert.equal(written.source, "update");
    assert.deepEqual(written.next, ["ask_user"]);

    const result = await client.invoke("reminders", "broken", null).result();
    assert.equal(result.reason, FinishReason.ERROR);
    assert.equal(result.error?.type, "KeyError");
    assert.equal(result.checkpoint?.checkpointId, written.checkpointId, "the versions saved before the error stay");

    const state = await client.getState("reminders", "broken");
    assert.equal(state.tasks[0]?.node, "ask_user");
    assert.ok(state.tasks[0]?.error, "the failed task carries its error");
  });

  test("the recursion limit stops a run that has not reached END", async () => {
    const result = await client
      .invoke("reminders", "limited", user("weather in Bergen"), { recursionLimit: 2 })
      .result();
    assert.equal(result.reason, FinishReason.RECURSION_LIMIT);
    assert.equal(result.error?.type, "GraphRecursionError");
  });
});

describe("graphs", () => {
  test("graphs() lists the registered graphs and graph() draws one", async () => {
    const graphs = await client.graphs();
    assert.deepEqual(
      graphs.map((g) => g.name),
      ["other", "reminders"],
    );
    assert.ok(graphs.every((g) => g.edges.length === 0));
    const reminders = await client.graph("reminders");
    assert.deepEqual(
      reminders.nodes.map((n) => n.name),
      ["__start__", "model", "ask_user", "tools", "__end__"],
    );
    assert.ok(reminders.edges.some((e) => e.source === "__start__" && e.target === "model" && !e.conditional));
    assert.ok(reminders.edges.some((e) => e.source === "model" && e.target === "ask_user" && e.conditional));
  });

  test("a thread id names a different thread under each graph", async () => {
    await client.invoke("reminders", "shared-id", user("hello from reminders")).result();
    await assert.rejects(client.getState("other", "shared-id"), NotFoundError);
    await client.invoke("other", "shared-id", user("hello from other")).result();
    const mine = await client.getState<ReminderState>("reminders", "shared-id");
    const theirs = await client.getState<ReminderState>("other", "shared-id");
    assert.equal(mine.values.messages[0]?.content, "hello from reminders");
    assert.equal(theirs.values.messages[0]?.content, "hello from other");
    assert.equal(mine.values.messages.length, 2);
    assert.equal(theirs.values.messages.length, 2);
  });
});
