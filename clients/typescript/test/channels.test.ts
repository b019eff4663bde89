/**
 * `channels`: a client spreads its calls over several connections (a thread's on
 * the one its id names, others round-robin), each stream on one of them for its
 * life (a server with `--workers N` gives each connection to one worker;
 * tests/replicas/test_workers.py shows the spread and a thread staying with one).
 */

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { Client, FinishReason } from "@graphwire/client";
import type { GraphwireServer } from "@graphwire/client/testing";

import { startGraphwire, user, type ReminderState } from "./helpers.js";

let server: GraphwireServer;

before(async () => {
  server = await startGraphwire();
});

after(async () => {
  await server?.stop();
});

describe("channels", () => {
  test("a client with three connections runs and streams on each in turn", async () => {
    const client = new Client(server.address, { channels: 3 });
    try {
      for (let i = 0; i < 4; i++) {
        const run = client.invoke<ReminderState>("reminders", `channels-${i}`, user("remind me to call mom at 5pm"));
        const kinds: string[] = [];
        for await (const event of run) kinds.push(event.kind);
        const result = await run.result();
        assert.equal(result.reason, FinishReason.INTERRUPT); // the reminders graph asks before adding one
        assert.deepEqual([kinds[0], kinds.at(-1)], ["run_started", "run_finished"]);
        const resumed = await client.resume<ReminderState>("reminders", `channels-${i}`, "yes").result();
        assert.equal(resumed.reason, FinishReason.END);
        assert.equal(resumed.values?.reminders.length, 1);
      }
      const state = await client.getState("reminders", "channels-3");
      assert.equal((state.values as ReminderState).reminders.length, 1);
    } finally {
      client.close();
    }
  });

  test("a count that is not a whole number from 1 is refused", () => {
    for (const bad of [0, -1, 1.5, 2000]) {
      assert.throws(
        () => new Client(server.address, { channels: bad }),
        /channels must be a whole number from 1 to 1024/,
      );
    }
  });
});
