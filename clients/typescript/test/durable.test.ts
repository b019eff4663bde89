/**
 * The client survives the network, against a live graphwire server, through
 * a TCP proxy the test starts on 127.0.0.1 (proxy.ts):
 *
 * - a stream cut while the run waits in its tool, the run started with
 *   `onDisconnect: "continue"`: the client re-joins it (JoinRun after the last
 *   seq it saw) and the caller gets every event once, in order, with one
 *   run_finished;
 * - a retried invoke: the request reached the server, which ran the turn, but
 *   the caller heard nothing before the connection was cut (UNAVAILABLE); the
 *   retry carries the same requestId, and the user's message is in the
 *   history exactly once.
 *
 * No sleeps: the forecast tool waits for a gate file the test creates, and
 * the server's state is polled with a deadline.
 */

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { Client, FinishReason, OnDisconnect, UnavailableError, messageRole, type RunEvent } from "@graphwire/client";
import type { GraphwireServer } from "@graphwire/client/testing";

import { inTools, startGraphwire, user, type ReminderState } from "./helpers.js";
import { TcpProxy } from "./proxy.js";

const CHANNEL = { "grpc.initial_reconnect_backoff_ms": 50, "grpc.max_reconnect_backoff_ms": 200 };
const RETRY = { attempts: 8, initialBackoffMs: 50, maxBackoffMs: 500 };
const DEADLINE_MS = 30_000;

let server: GraphwireServer;
let gates: string;
let direct: Client;

before(async () => {
  gates = await mkdtemp(join(tmpdir(), "graphwire-gates-"));
  server = await startGraphwire({
    args: ["--graph", "reminders=tests.graphs:reminders_gated"],
    env: { GRAPHWIRE_TEST_GATES: gates },
  });
  direct = new Client(server.address);
});

after(async () => {
  direct?.close();
  await server?.stop();
  await rm(gates, { recursive: true, force: true });
});

async function waitFor<T>(what: string, probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const got = await probe();
    if (got !== null) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20)); // polling what the server holds
  }
}

function contiguous(events: RunEvent<unknown>[]): boolean {
  return events.every((e, i) => e.seq === i + 1);
}

describe("through a proxy that cuts connections", () => {
  test("a stream cut mid-run with onDisconnect continue is re-joined, each event once", async () => {
    const proxy = await TcpProxy.start(server.address);
    const client = new Client(proxy.address, { channelOptions: CHANNEL, retry: RETRY });
    try {
      const thread = "cut-continue";
      const run = client.invoke<ReminderState>("reminders", thread, user("weather in Oslo"), {
        onDisconnect: OnDisconnect.CONTINUE,
      });
      const events: RunEvent<ReminderState>[] = [];
      for await (const event of run) {
        events.push(event);
        if (inTools(event)) {
          assert.equal(proxy.cut(), 1); // the tool waits at its gate: cut, then let it finish
          writeFileSync(join(gates, `forecast-${thread}`), "");
        }
      }
      assert.ok(run.calls >= 2, "the stream was never re-joined");
      assert.ok(contiguous(events), JSON.stringify(events.map((e) => e.seq)));
      assert.equal(events.filter((e) => e.kind === "run_finished").length, 1);
      const result = await run.result();
      assert.equal(result.reason, FinishReason.END);
      assert.equal(run.seq, events.at(-1)?.seq);
      assert.equal(run.runId, events[0]?.runId);
    } finally {
      client.close();
      await proxy.close();
    }
  });

  test("a cut run's error names its requestId, and the same call with it finishes the run once", async () => {
    const proxy = await TcpProxy.start(server.address);
    const client = new Client(proxy.address, { channelOptions: CHANNEL, retry: RETRY });
    try {
      const thread = "cut-cancel";
      const run = client.invoke<ReminderState>("reminders", thread, user("weather in Oslo"));
      const raised = await (async () => {
        try {
          for await (const event of run) if (inTools(event)) proxy.cut(); // the run stops with its connection
        } catch (error) {
          return error;
        }
        return null;
      })();
      assert.ok(raised instanceof UnavailableError, String(raised));
      assert.equal(raised.runId, run.runId);
      assert.equal(raised.requestId, run.requestId);
      assert.ok(raised.message.includes(`requestId ${JSON.stringify(run.requestId)}`), raised.message);
      await waitFor("the cancelled run's record", async () =>
        (await direct.getRun(run.runId ?? "")).endedAt !== null ? true : null,
      );
      writeFileSync(join(gates, `forecast-${thread}`), "");
      const again = client.invoke<ReminderState>("reminders", thread, user("weather in Oslo"), {
        requestId: raised.requestId ?? undefined,
      });
      assert.equal((await again.result()).reason, FinishReason.END);
      const history = await direct.history("reminders", thread);
      assert.equal(history.filter((s) => s.checkpoint.source === "input").length, 1); // the message once
    } finally {
      client.close();
      await proxy.close();
    }
  });

  test("a retried invoke applies the user's message once", async () => {
    const proxy = await TcpProxy.start(server.address);
    const client = new Client(proxy.address, { channelOptions: CHANNEL, retry: RETRY });
    try {
      const thread = "retried-invoke";
      await client.graphs(); // the connection is up: what follows reaches the server
      proxy.hold(); // ... but nothing the server answers reaches the client
      const run = client.invoke<ReminderState>("reminders", thread, user("remind me to call mom at 5pm"));
      const first = await waitFor("the first attempt's turn to end", async () => {
        const state = await direct.getState<ReminderState>("reminders", thread).catch(() => null);
        return state !== null && state.interrupts.length > 0 ? state : null;
      });
      assert.ok(proxy.cut() >= 1); // UNAVAILABLE before any event: the client retries
      const result = await run.result();
      assert.equal(result.reason, FinishReason.INTERRUPT);
      assert.equal(result.checkpoint?.checkpointId, first.checkpoint.checkpointId);
      assert.ok(run.calls >= 2);
      const users = first.values.messages.filter((m) => messageRole(m) === "user");
      assert.equal(users.length, 1);
      const history = await direct.history("reminders", thread);
      assert.equal(history.filter((s) => s.checkpoint.source === "input").length, 1);
    } finally {
      client.close();
      await proxy.close();
    }
  });
});
