/**
 * Every status code the server returns reaches the caller as its typed
 * error, from unary calls and from run streams alike.
 */

import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, before, describe, test } from "node:test";

import {
  AbortedError,
  Client,
  Code,
  DeadlineExceededError,
  FailedPreconditionError,
  GraphwireError,
  InvalidArgumentError,
  NotFoundError,
  ResourceExhaustedError,
  UnauthenticatedError,
  UnavailableError,
} from "@graphwire/client";
import type { GraphwireServer } from "@graphwire/client/testing";

import { inTools, startGraphwire, until, user } from "./helpers.js";

let server: GraphwireServer; // forecast waits 60 s: weather runs stay busy until cancelled
let authServer: GraphwireServer;
let smallServer: GraphwireServer;
let client: Client;

before(async () => {
  [server, authServer, smallServer] = await Promise.all([
    startGraphwire({ env: { GRAPHWIRE_FORECAST_DELAY: "60" } }),
    startGraphwire({ args: ["--auth-token", "s3cret"] }),
    startGraphwire({ args: ["--max-message-bytes", "2048"] }),
  ]);
  client = new Client(server.address);
  await client.invoke("reminders", "known", user("hello")).result();
});

after(async () => {
  client?.close();
  await Promise.all([server?.stop(), authServer?.stop(), smallServer?.stop()]);
});

/** Asserts that `promise` rejects with `cls` (a GraphwireError with `code`) whose message matches. */
async function rejectsWith(
  promise: Promise<unknown>,
  cls: new (...args: never[]) => GraphwireError,
  code: Code,
  message: RegExp,
): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof cls, `expected ${cls.name}, got ${String(error)}`);
    assert.ok(error instanceof GraphwireError);
    assert.equal(error.code, code);
    assert.equal(error.name, cls.name);
    assert.match(error.message, message);
    return true;
  });
}

describe("NOT_FOUND", () => {
  test("an unknown graph, from a run and from a unary call", async () => {
    const run = client.invoke("no-such-graph", "t", user("hello"));
    await rejectsWith(run.result(), NotFoundError, Code.NOT_FOUND, /unknown graph 'no-such-graph'/);
    await assert.rejects(async () => {
      for await (const _ of run) assert.fail("no event comes from a failed call");
    }, NotFoundError);
    await rejectsWith(client.graph("no-such-graph"), NotFoundError, Code.NOT_FOUND, /unknown graph/);
  });

  test("an unknown thread", async () => {
    await rejectsWith(client.getState("reminders", "no-such-thread"), NotFoundError, Code.NOT_FOUND, /no-such-thread/);
    await rejectsWith(
      client.resume("reminders", "no-such-thread", "yes").result(),
      NotFoundError,
      Code.NOT_FOUND,
      /does not exist/,
    );
  });

  test("deleting an unknown thread", async () => {
    await rejectsWith(
      client.deleteThread("reminders", "no-such-thread"),
      NotFoundError,
      Code.NOT_FOUND,
      /does not exist/,
    );
  });

  test("an unknown checkpoint", async () => {
    const options = { checkpointId: "no-such-checkpoint" };
    await rejectsWith(
      client.getState("reminders", "known", options),
      NotFoundError,
      Code.NOT_FOUND,
      /no-such-checkpoint/,
    );
    await rejectsWith(
      client.fork("reminders", "known", "no-such-checkpoint").result(),
      NotFoundError,
      Code.NOT_FOUND,
      /no-such-checkpoint/,
    );
    await rejectsWith(
      client.invoke("reminders", "known", user("hi"), options).result(),
      NotFoundError,
      Code.NOT_FOUND,
      /no-such-checkpoint/,
    );
    await rejectsWith(
      client.history("reminders", "known", { before: "no-such-checkpoint" }),
      NotFoundError,
      Code.NOT_FOUND,
      /no-such-checkpoint/,
    );
  });
});

describe("INVALID_ARGUMENT", () => {
  const invalid = (promise: Promise<unknown>, field: RegExp): Promise<void> =>
    rejectsWith(promise, InvalidArgumentError, Code.INVALID_ARGUMENT, field);

  test("malformed input; the message names the field", async () => {
    await invalid(client.invoke("reminders", "bad", [1, 2]).result(), /^input_json: must be a JSON object/);
    await invalid(client.invoke("reminders", "bad", "hello").result(), /^input_json:/);
    await invalid(client.invoke("reminders", "", user("hi")).result(), /^thread_id: required/);
    await invalid(client.invoke("reminders", "bad", user("hi"), { recursionLimit: 0 }).result(), /recursion_limit/);
    await invalid(
      client.invoke("reminders", "bad", user("hi"), { interruptBefore: ["no-such-node"] }).result(),
      /interrupt_before: unknown node 'no-such-node'/,
    );
    await invalid(client.updateState("reminders", "known", ["not", "an", "object"]), /^values_json:/);
    await invalid(client.updateState("reminders", "known", { reminders: [] }, { asNode: "nope" }), /^as_node:/);
    await invalid(client.history("reminders", "known", { filter: { source: ["a"] } }), /^filter_json:/);
  });

  test("what JSON cannot carry is refused before sending", () => {
    assert.throws(() => client.invoke("reminders", "bad", { n: Number.NaN }), TypeError);
    assert.throws(() => client.invoke("reminders", "bad", { n: 1n }), TypeError);
    assert.throws(
      () => client.invoke("reminders", "bad", user("hi"), { eventKinds: ["no-such-kind" as "values"] }),
      TypeError,
    );
  });
});

describe("FAILED_PRECONDITION", () => {
  test("resuming a thread with no pending interrupt", async () => {
    await rejectsWith(
      client.resume("reminders", "known", "yes").result(),
      FailedPreconditionError,
      Code.FAILED_PRECONDITION,
      /no pending interrupt/,
    );
  });
});

describe("ABORTED", () => {
  test("a second run, an update or a delete on a busy thread", async () => {
    const busy = client.invoke("reminders", "busy", user("weather in Oslo"));
    await until(busy, inTools);
    try {
      await rejectsWith(
        client.invoke("reminders", "busy", user("hello")).result(),
        AbortedError,
        Code.ABORTED,
        /already has a run in progress/,
      );
      await rejectsWith(client.updateState("reminders", "busy", { reminders: [] }), AbortedError, Code.ABORTED, /busy/);
      await rejectsWith(client.deleteThread("reminders", "busy"), AbortedError, Code.ABORTED, /busy/);
    } finally {
      await client.cancel("reminders", "busy");
    }
    assert.equal((await busy.result()).reason, "CANCELLED");
  });
});

describe("DEADLINE_EXCEEDED", () => {
  test("a run that outlives timeoutMs; its run is cancelled and the thread goes on", async () => {
    await rejectsWith(
      client.invoke("reminders", "deadline", user("weather in Oslo"), { timeoutMs: 500 }).result(),
      DeadlineExceededError,
      Code.DEADLINE_EXCEEDED,
      /deadline/i,
    );
    const next = await client.invoke("reminders", "deadline", user("hello"), { enqueue: true }).result();
    assert.equal(next.reason, "END");
  });
});

describe("UNAUTHENTICATED", () => {
  test("no token, or a wrong one; the right one works", async () => {
    const anonymous = new Client(authServer.address);
    const wrong = new Client(authServer.address, { token: "guess" });
    const right = new Client(authServer.address, { token: "s3cret" });
    try {
      await rejectsWith(anonymous.graphs(), UnauthenticatedError, Code.UNAUTHENTICATED, /missing bearer token/);
      await rejectsWith(
        anonymous.invoke("reminders", "t", user("hello")).result(),
        UnauthenticatedError,
        Code.UNAUTHENTICATED,
        /missing bearer token/,
      );
      await rejectsWith(
        wrong.getState("reminders", "t"),
        UnauthenticatedError,
        Code.UNAUTHENTICATED,
        /wrong bearer token/,
      );
      const result = await right.invoke("reminders", "t", user("hello")).result();
      assert.equal(result.reason, "END");
      assert.deepEqual(
        (await right.graphs()).map((g) => g.name),
        ["reminders"],
      );
    } finally {
      anonymous.close();
      wrong.close();
      right.close();
    }
  });

  test("an empty token is refused at once", () => {
    assert.throws(() => new Client(authServer.address, { token: "" }), TypeError);
  });
});

describe("RESOURCE_EXHAUSTED", () => {
  test("a request over the server's --max-message-bytes", async () => {
    const small = new Client(smallServer.address);
    try {
      const big = user("x".repeat(4096));
      await rejectsWith(
        small.invoke("reminders", "big", big).result(),
        ResourceExhaustedError,
        Code.RESOURCE_EXHAUSTED,
        /./,
      );
      await rejectsWith(
        small.updateState("reminders", "big", { reminders: [{ text: "x".repeat(4096), at: "now" }] }),
        ResourceExhaustedError,
        Code.RESOURCE_EXHAUSTED,
        /./,
      );
      const fine = await small.invoke("reminders", "big", user("hello")).result();
      assert.equal(fine.reason, "END", "smaller requests still go through");
    } finally {
      small.close();
    }
  });
});

describe("UNAVAILABLE", () => {
  test("nothing listens at the address", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
      });
    });
    const nobody = new Client(`127.0.0.1:${port}`);
    try {
      await rejectsWith(nobody.graphs(), UnavailableError, Code.UNAVAILABLE, /./);
      await rejectsWith(
        nobody.invoke("reminders", "t", user("hello")).result(),
        UnavailableError,
        Code.UNAVAILABLE,
        /./,
      );
    } finally {
      nobody.close();
    }
  });
});
