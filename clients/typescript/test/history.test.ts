/**
 * A thread's versions: reading them, going back (fork), writing one by hand
 * (updateState), deleting them all.
 */

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { Client, NotFoundError, type StateSnapshot } from "@graphwire/client";
import type { GraphwireServer } from "@graphwire/client/testing";

import { forecastText, lastMessage, startGraphwire, user, type ReminderState } from "./helpers.js";

let server: GraphwireServer;
let client: Client;

before(async () => {
  server = await startGraphwire();
  client = new Client(server.address);
});

after(async () => {
  client?.close();
  await server?.stop();
});

/** The versions of the branch ending at `head`, newest first. */
function branch<S>(history: StateSnapshot<S>[], head: string): StateSnapshot<S>[] {
  const byId = new Map(history.map((s) => [s.checkpoint.checkpointId, s]));
  const out: StateSnapshot<S>[] = [];
  for (let s = byId.get(head); s !== undefined; s = byId.get(s.checkpoint.parentId ?? "")) out.push(s);
  return out;
}

describe("history", () => {
  test("lists every version newest first; parentId walks a branch back to the first", async () => {
    const first = await client.invoke("reminders", "hist", user("hello")).result();
    const second = await client.invoke("reminders", "hist", user("hello again"), { runMetadata: { turn: 2 } }).result();
    const history = await client.history<ReminderState>("reminders", "hist");

    assert.equal(history[0]?.checkpoint.checkpointId, second.checkpoint?.checkpointId);
    const walked = branch(history, second.checkpoint!.checkpointId);
    assert.equal(walked.length, history.length, "one branch: the walk meets every version");
    assert.equal(walked.at(-1)?.checkpoint.parentId, null);
    assert.deepEqual(
      walked.map((s) => s.checkpoint.source),
      ["loop", "loop", "input", "loop", "loop", "input"],
    );
    assert.deepEqual(
      walked.map((s) => s.checkpoint.step),
      [4, 3, 2, 1, 0, -1],
      "a turn's input version takes the next step number",
    );
    assert.ok(walked.some((s) => s.checkpoint.checkpointId === first.checkpoint?.checkpointId));
    assert.ok(history.every((s) => s.checkpoint.next.join() === s.next.join()));
    assert.deepEqual(history.at(-1)?.metadata["source"], "input");
  });

  test("pages with limit and before, and filters on metadata", async () => {
    const all = await client.history("reminders", "hist");
    const page1 = await client.history("reminders", "hist", { limit: 2 });
    const page2 = await client.history("reminders", "hist", { limit: 2, before: page1[1]!.checkpoint.checkpointId });
    assert.deepEqual(
      [...page1, ...page2].map((s) => s.checkpoint.checkpointId),
      all.slice(0, 4).map((s) => s.checkpoint.checkpointId),
    );

    const inputs = await client.history("reminders", "hist", { filter: { source: "input" } });
    assert.equal(inputs.length, 2);
    const secondTurn = await client.history("reminders", "hist", { filter: { turn: 2 } });
    assert.ok(secondTurn.length > 0);
    assert.ok(
      secondTurn.every((s) => s.metadata["turn"] === 2),
      "runMetadata lands in every version the run saved",
    );
  });

  test("getState reads an older version by id", async () => {
    const all = await client.history<ReminderState>("reminders", "hist");
    const oldest = all.at(-1)!;
    const read = await client.getState<ReminderState>("reminders", "hist", {
      checkpointId: oldest.checkpoint.checkpointId,
    });
    assert.deepEqual(read.values, oldest.values);
    assert.deepEqual(read.next, ["__start__"]);
  });

  test("a thread with no version has an empty history", async () => {
    assert.deepEqual(await client.history("reminders", "never-used"), []);
  });
});

describe("fork", () => {
  test("re-runs from an older version on a new branch; the old branch stays", async () => {
    await client.invoke("reminders", "fork", user("remind me to call mom at 5pm")).result();
    const done = await client.resume<ReminderState>("reminders", "fork", "yes").result();
    const oldReply = lastMessage(done.values);
    const history = await client.history<ReminderState>("reminders", "fork");
    // The version after the tool ran, before the model wrote the reply.
    const beforeReply = history.find((s) => s.next.join() === "model" && s.values.reminders.length === 1)!;
    assert.ok(beforeReply, "there is a version just before the reply");

    const forked = await client.fork<ReminderState>("reminders", "fork", beforeReply.checkpoint.checkpointId).result();
    assert.equal(forked.reason, "END");
    const newReply = lastMessage(forked.values);
    assert.equal(newReply.content, oldReply.content, "the scripted model says the same thing");
    assert.notEqual(newReply.id, oldReply.id, "but it is a new message");
    assert.equal(forked.values?.messages.length, done.values?.messages.length, "replaced, not appended");

    const after = await client.history<ReminderState>("reminders", "fork");
    assert.equal(after[0]?.checkpoint.checkpointId, forked.checkpoint?.checkpointId, "the new branch is the newest");
    const forkVersion = after.find((s) => s.checkpoint.source === "fork")!;
    assert.equal(forkVersion.checkpoint.parentId, beforeReply.checkpoint.checkpointId);
    assert.equal(forkVersion.checkpoint.step, beforeReply.checkpoint.step + 1);
    assert.ok(
      after.some((s) => s.checkpoint.checkpointId === done.checkpoint?.checkpointId),
      "the old branch stays in the history",
    );
    const old = await client.getState<ReminderState>("reminders", "fork", {
      checkpointId: done.checkpoint!.checkpointId,
    });
    assert.equal(lastMessage(old.values).id, oldReply.id);
  });

  test("with an update, changes the past before running: here, what the user said", async () => {
    const first = await client.invoke<ReminderState>("reminders", "edit", user("hello")).result();
    const history = await client.history<ReminderState>("reminders", "edit");
    const beforeModel = history.find((s) => s.next.join() === "model")!;
    const said = beforeModel.values.messages[0]!;

    const edited = await client
      .fork<ReminderState>("reminders", "edit", beforeModel.checkpoint.checkpointId, {
        update: { messages: [{ ...said, content: "weather in Oslo" }] }, // same id: replaces it
        asNode: "tools",
      })
      .result();
    assert.equal(edited.reason, "END");
    assert.equal(edited.values?.messages[0]?.content, "weather in Oslo");
    assert.equal(lastMessage(edited.values).content, forecastText("Oslo"));

    const after = await client.history("reminders", "edit");
    const update = after.find((s) => s.checkpoint.source === "update")!;
    assert.equal(update.checkpoint.parentId, beforeModel.checkpoint.checkpointId);
    assert.ok(after.some((s) => s.checkpoint.checkpointId === first.checkpoint?.checkpointId));
  });

  test("an unknown version is NotFoundError", async () => {
    const run = client.fork("reminders", "edit", "no-such-checkpoint");
    await assert.rejects(run.result(), NotFoundError);
  });
});

describe("updateState and deleteThread", () => {
  test("updateState writes a version through the reducers without running anything", async () => {
    const start = await client.invoke<ReminderState>("reminders", "manual", user("hello")).result();
    const written = await client.updateState(
      "reminders",
      "manual",
      { reminders: [{ text: "water the plants", at: "8am" }] },
      { asNode: "tools" },
    );
    assert.equal(written.source, "update");
    assert.equal(written.parentId, start.checkpoint?.checkpointId);
    assert.equal(written.step, start.checkpoint!.step + 1);
    assert.deepEqual(written.next, ["model"], "as if tools had run: the model is next");
    const state = await client.getState<ReminderState>("reminders", "manual");
    assert.deepEqual(state.values.reminders, [{ text: "water the plants", at: "8am" }]);
    assert.equal(state.values.messages.length, 2, "nothing ran");

    const again = await client.updateState(
      "reminders",
      "manual",
      { reminders: [{ text: "call mom", at: "5pm" }] },
      { asNode: "tools" },
    );
    const appended = await client.getState<ReminderState>("reminders", "manual");
    assert.equal(appended.checkpoint.checkpointId, again.checkpointId);
    assert.equal(appended.values.reminders.length, 2, "the reminders reducer appends");
  });

  test("updateState on an older version starts a branch from it", async () => {
    const history = await client.history("reminders", "manual");
    const oldest = history.at(-1)!;
    const written = await client.updateState(
      "reminders",
      "manual",
      { reminders: [] },
      { asNode: "tools", checkpointId: oldest.checkpoint.checkpointId },
    );
    assert.equal(written.parentId, oldest.checkpoint.checkpointId);
  });

  test("deleteThread removes the thread with all its versions", async () => {
    await client.invoke("reminders", "doomed", user("hello")).result();
    await client.deleteThread("reminders", "doomed");
    await assert.rejects(client.getState("reminders", "doomed"), NotFoundError);
    assert.deepEqual(await client.history("reminders", "doomed"), []);
  });
});
