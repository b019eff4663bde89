/**
 * Chat-safe turns and double-texting against a live graphwire server (issue 33 items 3, 4):
 * `ifInterrupted: "reject"` and `expectCheckpointId` refuse with `FailedPreconditionError`, whose
 * `client.turnRefused(error)` decodes the pending interrupts and the newest version;
 * `multitaskStrategy: "rollback"` cancels a running run and deletes its versions, and the records
 * name each other (`replacedBy`, `replaces`).
 *
 * No sleeps: the held run waits at a gate file that is never created.
 */

import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import {
  Client,
  FailedPreconditionError,
  FinishReason,
  IfInterrupted,
  InvalidArgumentError,
  MultitaskStrategy,
  RunStatus,
  type StateValues,
} from "@graphwire/client";
import type { GraphwireServer } from "@graphwire/client/testing";

import { startGraphwire, until } from "./helpers.js";

let server: GraphwireServer;
let client: Client;
let gates: string;

before(async () => {
  gates = await mkdtemp(join(tmpdir(), "graphwire-gates-"));
  server = await startGraphwire({
    args: ["--graph", "gated=tests.graphs:gated", "--graph", "gated_question=tests.graphs:gated_question"],
    env: { GRAPHWIRE_TEST_GATES: gates },
  });
  client = new Client(server.address);
});

after(async () => {
  client?.close();
  await server?.stop();
  await rm(gates, { recursive: true, force: true });
});

async function refusal(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof FailedPreconditionError, String(error));
    return error;
  }
  assert.fail("the call was not refused");
}

describe("chat-safe turns", () => {
  test("ifInterrupted reject returns the pending interrupts; expectCheckpointId refuses a stale caller", async () => {
    const thread = "chat-safe";
    const asked = await client.invoke("gated_question", thread, { label: "q" }).result();
    assert.equal(asked.reason, FinishReason.INTERRUPT);
    const seen = asked.checkpoint?.checkpointId ?? "";

    const error = await refusal(
      client.invoke("gated_question", thread, { label: "new" }, { ifInterrupted: IfInterrupted.REJECT }).result(),
    );
    const why = client.turnRefused(error);
    assert.equal(why?.reason, "interrupted");
    assert.equal(why?.checkpointId, seen);
    assert.deepEqual(
      why?.interrupts.map((i) => [i.interruptId, i.value]),
      [[asked.interrupts[0]?.interruptId, "Go on with q?"]],
    );
    assert.equal((await client.listRuns("gated_question", thread)).length, 1); // no record of the refused call

    const stale = client.turnRefused(
      await refusal(client.resume("gated_question", thread, "yes", { expectCheckpointId: "an-old-one" }).result()),
    );
    assert.equal(stale?.reason, "stale_checkpoint");
    assert.equal(stale?.checkpointId, seen);
    const done = await client.resume("gated_question", thread, "yes", { expectCheckpointId: seen }).result();
    assert.equal(done.reason, FinishReason.END);
    assert.equal(client.turnRefused(new Error("other")), null);
    await assert.rejects(
      client
        .invoke("gated_question", thread, { label: "x" }, { enqueue: true, multitaskStrategy: "interrupt" })
        .result(),
      InvalidArgumentError,
    );
  });
});

describe("double-texting", () => {
  test("rollback cancels the running run and deletes its versions", async () => {
    const thread = "double-text";
    await client.invoke("gated", thread, { label: "first" }).result();
    const held = client.invoke("gated", thread, { gate: "never-opened", label: "held" }, { eventKinds: ["custom"] });
    await until(held, (e) => e.kind === "custom");
    const third = await client
      .invoke("gated", thread, { gate: null, label: "third" }, { multitaskStrategy: MultitaskStrategy.ROLLBACK })
      .result();
    const heldEnd = await held.result();
    assert.equal(heldEnd.reason, FinishReason.CANCELLED);
    assert.deepEqual((third.values as StateValues)["log"], ["first", "third"]);
    const history = await client.history("gated", thread);
    assert.ok(history.every((s) => s.metadata["run_id"] !== held.runId));
    const info = await client.getRun(held.runId ?? "");
    assert.equal(info.status, RunStatus.ROLLED_BACK);
    assert.equal(info.replacedBy, third.runId);
    assert.equal((await client.getRun(third.runId)).replaces, held.runId);
  });
});
