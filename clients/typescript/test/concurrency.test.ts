/**
 * Several users at once, and stopping runs: AbortSignal, cancel(), enqueue.
 *
 * The server's forecast tool waits 60 s here, so a run that asks for the
 * weather is still in its tools step for as long as a test needs; every such
 * run is cancelled by the test. Nothing waits on a clock: the tests wait for
 * events (the tools task starting) and for results.
 */

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { CancelledError, Client, Code, FinishReason } from "@graphwire/client";
import type { GraphwireServer } from "@graphwire/client/testing";

import { inTools, lastMessage, startGraphwire, until, user, type ReminderState } from "./helpers.js";

let server: GraphwireServer;
let alice: Client;
let bob: Client;

before(async () => {
  server = await startGraphwire({ env: { GRAPHWIRE_FORECAST_DELAY: "60" } });
  alice = new Client(server.address);
  bob = new Client(server.address); // another connection, as another chat-server replica would have
});

after(async () => {
  alice?.close();
  bob?.close();
  await server?.stop();
});

/** Settles to true once the promise settles, either way. */
function watch(promise: Promise<unknown>): { settled: boolean } {
  const state = { settled: false };
  promise.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
}

describe("two users at once", () => {
  test("one user's whole conversation goes through while the other's run waits in a slow tool", async () => {
    // durability "sync": each step's version is written before the next step starts,
    // so the version before the tool is saved by the time the tool runs.
    const slow = alice.invoke<ReminderState>("reminders", "alice", user("weather in Oslo"), { durability: "sync" });
    await until(slow, inTools);
    const slowState = watch(slow.result());

    const asked = await bob.invoke("reminders", "bob", user("remind me to call mom at 5pm")).result();
    assert.equal(asked.reason, "INTERRUPT");
    const done = await bob.resume<ReminderState>("reminders", "bob", "yes").result();
    assert.equal(lastMessage(done.values).content, "Done: I'll remind you to call mom at 5pm.");
    assert.equal(slowState.settled, false, "alice's run is still in its tool");

    assert.equal(await bob.cancel("reminders", "alice"), true, "any connection can cancel a thread's run");
    const cancelled = await slow.result();
    assert.equal(cancelled.reason, FinishReason.CANCELLED);
    assert.deepEqual(cancelled.checkpoint?.next, ["tools"], "the versions saved before the cancel stay");

    const aliceState = await alice.getState<ReminderState>("reminders", "alice");
    assert.ok(
      aliceState.values.messages.every((m) => !String(m.content).includes("mom")),
      "threads do not mix",
    );
  });

  test("two conversations with interrupts run side by side", async () => {
    const converse = async (client: Client, thread: string, task: string, at: string): Promise<ReminderState> => {
      const asked = await client.invoke("reminders", thread, user(`remind me to ${task} at ${at}`)).result();
      assert.equal(asked.interrupts[0]?.value, `Add a reminder to ${task} at ${at}?`);
      const done = await client.resume<ReminderState>("reminders", thread, "yes").result();
      return done.values!;
    };
    const [a, b] = await Promise.all([
      converse(alice, "alice-2", "water the plants", "8am"),
      converse(bob, "bob-2", "call mom", "5pm"),
    ]);
    assert.deepEqual(a.reminders, [{ text: "water the plants", at: "8am" }]);
    assert.deepEqual(b.reminders, [{ text: "call mom", at: "5pm" }]);
    assert.equal(lastMessage(a).content, "Done: I'll remind you to water the plants at 8am.");
    assert.equal(lastMessage(b).content, "Done: I'll remind you to call mom at 5pm.");
  });
});

describe("cancellation", () => {
  test("aborting the signal cancels the call and its run; the thread takes its next run", async () => {
    const controller = new AbortController();
    const run = alice.invoke<ReminderState>("reminders", "abort", user("weather in Oslo"), {
      signal: controller.signal,
      durability: "sync", // the version before the tool is saved before the tool starts
    });
    await until(run, inTools);
    const reason = new Error("the user closed the page");
    controller.abort(reason);

    await assert.rejects(run.result(), (error: unknown) => {
      assert.ok(error instanceof CancelledError);
      assert.equal(error.code, Code.CANCELLED);
      assert.equal(error.codeName, "CANCELLED");
      assert.equal(error.cause, reason);
      return true;
    });
    const seen: string[] = [];
    await assert.rejects(async () => {
      for await (const event of run) seen.push(event.kind);
    }, CancelledError);
    assert.equal(seen[0], "run_started", "the iterator replays what came before the error");
    assert.ok(!seen.includes("run_finished"));

    // The server may still be unwinding the cancelled run: enqueue waits for it.
    const next = await alice
      .invoke("reminders", "abort", user("remind me to call mom at 5pm"), { enqueue: true })
      .result();
    assert.equal(next.reason, "INTERRUPT");
    const done = await alice.resume<ReminderState>("reminders", "abort", "yes").result();
    assert.equal(lastMessage(done.values).content, "Done: I'll remind you to call mom at 5pm.");
    const history = await alice.history("reminders", "abort");
    assert.ok(
      history.some((s) => s.next.join() === "tools"),
      "the cancelled run's saved versions stay",
    );
  });

  test("an already aborted signal fails the call without sending it", async () => {
    const signal = AbortSignal.abort(new Error("too late"));
    await assert.rejects(alice.invoke("reminders", "never", user("hello"), { signal }).result(), CancelledError);
    await assert.rejects(alice.graphs({ signal }), CancelledError);
    assert.deepEqual(await alice.history("reminders", "never"), [], "nothing ran");
  });

  test("enqueue waits for the thread's run instead of failing", async () => {
    const first = alice.invoke("reminders", "queue", user("weather in Oslo"));
    const started = await until(first, (e) => e.kind === "run_started");
    await until(first, inTools);
    const second = bob.invoke<ReminderState>("reminders", "queue", user("hello"), { enqueue: true });
    const secondState = watch(second.result());

    assert.equal(await bob.cancel("reminders", "queue", { runId: "not-this-run" }), false);
    assert.equal(secondState.settled, false, "the second run waits its turn");
    assert.equal(await bob.cancel("reminders", "queue", { runId: started.runId }), true);
    assert.equal((await first.result()).reason, "CANCELLED");
    const done = await second.result();
    assert.equal(done.reason, "END");
    assert.match(String(lastMessage(done.values).content), /^You said: hello\./);
    assert.notEqual(done.runId, started.runId);
  });

  test("cancel() with nothing running returns false", async () => {
    assert.equal(await alice.cancel("reminders", "queue"), false);
    assert.equal(await alice.cancel("reminders", "no-such-thread"), false);
  });
});
