/**
 * A supervisor with two agent subgraphs over a real server (examples/supervisor,
 * issue 17): the agents' tokens arrive with their namespace, the writer's
 * interrupt is answered by id, getState nests the writer's snapshot, graph() nests each
 * agent's drawing.
 */

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { Client, FinishReason, type RunEvent } from "@graphwire/client";
import type { GraphwireServer } from "@graphwire/client/testing";

import { startGraphwire, user } from "./helpers.js";

let server: GraphwireServer;
let client: Client;

before(async () => {
  server = await startGraphwire({ args: ["--graph", "supervisor=examples.supervisor:graph"] });
  client = new Client(server.address);
});

after(async () => {
  client?.close();
  await server?.stop();
});

describe("a supervisor with two agents", () => {
  test("tokens carry their agent's namespace; the writer's question is answered by id", async () => {
    const run = client.invoke("supervisor", "team", user("tidal power"));
    const events: RunEvent[] = [];
    for await (const event of run) events.push(event);

    const tokens: Record<string, string> = {};
    for (const e of events) {
      if (e.kind !== "message_chunk") continue;
      assert.equal(e.namespace.length, 1);
      const agent = e.namespace[0]!.split(":")[0]!;
      tokens[agent] = (tokens[agent] ?? "") + String((e.chunk as { content: string }).content);
    }
    assert.deepEqual(tokens, {
      researcher: "Notes on tidal power: three sources agree it matters, one disagrees.",
      writer: "Draft: tidal power, explained in one paragraph from the researcher's notes.",
    });
    assert.deepEqual(events.at(-1)?.namespace, []);

    const result = await run.result();
    assert.equal(result.reason, FinishReason.INTERRUPT);
    const question = result.interrupts[0]!;
    assert.equal((question.value as { question: string }).question, "Publish this draft?");

    const state = await client.getState("supervisor", "team", { subgraphs: true });
    const task = state.tasks[0]!;
    assert.equal(task.node, "writer");
    assert.equal(task.checkpointNs, `writer:${task.taskId}`);
    assert.deepEqual(task.state?.next, ["approve"]);
    const inner = await client.history("supervisor", "team", { checkpointNs: task.checkpointNs });
    assert.deepEqual(
      inner.map((h) => h.checkpoint.source),
      ["loop", "loop", "input"],
    );

    const done = await client
      .resume("supervisor", "team", undefined, { resumes: { [question.interruptId]: "yes" } })
      .result();
    assert.equal(done.reason, FinishReason.END);
    const messages = (done.values as { messages: { content: string }[] }).messages;
    assert.equal(messages.at(-1)?.content, "Published.");
  });

  test("graph() nests each agent's own drawing in its node", async () => {
    const graph = await client.graph("supervisor");
    const byName = new Map(graph.nodes.map((n) => [n.name, n]));
    assert.equal(byName.get("supervisor")?.subgraph, null);
    const researcher = byName.get("researcher")?.subgraph;
    assert.deepEqual(
      researcher?.nodes.map((n) => n.name),
      ["__start__", "research", "handoff", "__end__"],
    );
    assert.ok(researcher?.edges.some((e) => e.source === "research" && e.target === "handoff" && !e.conditional));
    assert.ok(graph.edges.some((e) => e.source === "researcher" && e.target === "writer" && e.conditional));
    const listed = (await client.graphs()).find((g) => g.name === "supervisor");
    assert.ok(listed?.nodes.every((n) => n.subgraph === null));
  });
});
