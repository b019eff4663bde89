/**
 * A client written from the proto alone, as a Node programmer writes one on
 * day one: @grpc/proto-loader with its default options (no `longs`, no
 * `defaults`, no `oneofs`), against a real server. Numbers must arrive as
 * plain numbers (no Long objects), step 0 must be there, and values must be
 * JSON text that `JSON.parse` reads.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";

import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import type { GraphwireServer } from "@graphwire/client/testing";

import { REPO_ROOT, startGraphwire } from "./helpers.js";

type Message = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let server: GraphwireServer;
let stub: grpc.Client & Record<string, (request: Message) => grpc.ClientReadableStream<Message>>;

before(async () => {
  server = await startGraphwire();
  const definition = protoLoader.loadSync("graphwire/v1/graphwire.proto", { includeDirs: [join(REPO_ROOT, "proto")] });
  const loaded = grpc.loadPackageDefinition(definition) as Message;
  const GraphService = loaded["graphwire"]["v1"]["GraphService"] as grpc.ServiceClientConstructor;
  stub = new GraphService(server.address, grpc.credentials.createInsecure()) as typeof stub;
});

after(async () => {
  stub?.close();
  await server?.stop();
});

function events(method: "Invoke" | "Resume", request: Message): Promise<Message[]> {
  return new Promise((resolve, reject) => {
    const seen: Message[] = [];
    const call = stub[method]!(request);
    call.on("data", (event: Message) => seen.push(event));
    call.on("error", reject);
    call.on("end", () => resolve(seen));
  });
}

test("a default proto-loader client gets numbers, step 0 and JSON text", async () => {
  const input = { messages: [{ role: "user", content: "remind me to call mom at 5pm" }] };
  const asked = await events("Invoke", { graph: "reminders", threadId: "loader", inputJson: JSON.stringify(input) });

  for (const event of asked) assert.equal(typeof event["seq"], "number", "seq is a plain number, not a Long");
  const steps = asked.filter((e) => e["stepStarted"]).map((e) => e["stepStarted"]["step"]);
  assert.deepEqual(steps.slice(0, 2), [0, 1], "step 0 is there without `defaults: true`");
  const saved = asked.filter((e) => e["checkpointSaved"]).map((e) => e["checkpointSaved"]["checkpoint"]["step"]);
  assert.deepEqual(saved, [-1, 0, 1]);

  const finished = asked.at(-1)!["runFinished"];
  assert.equal(finished["reason"], 2, "FINISH_REASON_INTERRUPT (enums are numbers by default)");
  assert.equal(JSON.parse(finished["interrupts"][0]["valueJson"]), "Add a reminder to call mom at 5pm?");
  assert.deepEqual(JSON.parse(finished["valuesJson"])["messages"][0]["content"], input.messages[0]!.content);

  const done = await events("Resume", { graph: "reminders", threadId: "loader", resumeJson: '"yes"' });
  const end = done.at(-1)!["runFinished"];
  assert.equal(end["reason"], 1, "FINISH_REASON_END");
  assert.equal(
    JSON.parse(end["valuesJson"])["messages"].at(-1)["content"],
    "Done: I'll remind you to call mom at 5pm.",
  );
});
