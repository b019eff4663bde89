/**
 * A thread's runs, from the records every replica writes, against a live graphwire server:
 * `listRunsPage` pages to the end (`nextBefore`), a listing leaves each run's final state out
 * unless asked for (`includeValues`), and `getRun` returns it.
 */

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { Client, FinishReason, NotFoundError, type StateValues } from "@graphwire/client";
import type { GraphwireServer } from "@graphwire/client/testing";

import { startGraphwire } from "./helpers.js";

let server: GraphwireServer;
let client: Client;

before(async () => {
  server = await startGraphwire({ args: ["--graph", "chain3=tests.graphs:chain3"] });
  client = new Client(server.address);
});

after(async () => {
  client?.close();
  await server?.stop();
});

describe("listRunsPage", () => {
  test("pages to the end, each run once; values only when asked for", async () => {
    const thread = "pages";
    const finals: StateValues[] = [];
    for (let n = 0; n < 5; n++) {
      const result = await client.invoke("chain3", thread, { n }).result();
      assert.equal(result.reason, FinishReason.END);
      finals.push(result.values as StateValues);
    }
    const all = await client.listRuns("chain3", thread);
    assert.equal(all.length, 5);
    const pages: string[][] = [];
    let before: string | undefined;
    for (;;) {
      const page = await client.listRunsPage("chain3", thread, { limit: 2, before });
      pages.push(page.runs.map((r) => r.runId));
      if (page.nextBefore === null) break;
      assert.equal(page.nextBefore, page.runs.at(-1)?.runId);
      before = page.nextBefore;
    }
    assert.deepEqual(
      pages,
      [all.slice(0, 2), all.slice(2, 4), all.slice(4)].map((p) => p.map((r) => r.runId)),
    );
    assert.equal(all[0]?.values, null); // left out...
    assert.equal(all[0]?.reason, FinishReason.END); // ...what the listing shows kept
    const [newest] = (await client.listRunsPage("chain3", thread, { limit: 1, includeValues: true })).runs;
    assert.deepEqual(newest?.values, finals.at(-1));
    assert.deepEqual((await client.getRun(newest?.runId ?? "")).values, finals.at(-1));
    await assert.rejects(client.listRunsPage("chain3", thread, { limit: 1, before: "no-such-run" }), NotFoundError);
  });
});
