/**
 * Values on the wire (the JSON codecs, big integers) and the package's
 * public surface: typed errors per code, exports, version.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";

import * as graphwire from "@graphwire/client";
import {
  Client,
  Code,
  GraphwireError,
  NotFoundError,
  UnknownError,
  VERSION,
  bigIntJson,
  errorForCode,
  standardJson,
} from "@graphwire/client";
import type { GraphwireServer } from "@graphwire/client/testing";

import { startGraphwire } from "./helpers.js";

describe("bigIntJson", () => {
  test("reads integers beyond 2^53 as bigint and everything else as JSON.parse does", () => {
    const text =
      '{"id":12345678901234567890,"neg":-9007199254740993,"safe":9007199254740991,"f":1.5e300,"s":"12345678901234567890"}';
    assert.deepEqual(bigIntJson.parse(text), {
      id: 12345678901234567890n,
      neg: -9007199254740993n,
      safe: 9007199254740991,
      f: 1.5e300,
      s: "12345678901234567890",
    });
    for (const same of [
      '{"a":[1,2,{"b":null}],"c":true,"d":"\\u00e9\\n"}',
      "[]",
      '""',
      "0",
      "-0.5",
      '{"__proto__":1}',
    ]) {
      assert.deepEqual(bigIntJson.parse(same), JSON.parse(same), same);
    }
    const proto = bigIntJson.parse('{"__proto__":{"polluted":12345678901234567890}}') as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(proto), Object.prototype, "__proto__ stays an own data property");
    assert.ok(Object.hasOwn(proto, "__proto__"));
  });

  test("rejects what JSON.parse rejects", () => {
    for (const bad of [
      "[1,]",
      "{",
      '{"a" 1}',
      "01234567890123456789",
      "[12345678901234567890",
      "nul",
      '"\\x"',
      "1 2",
    ]) {
      assert.throws(() => bigIntJson.parse(bad), SyntaxError, bad);
    }
  });

  test("writes bigints as exact digits and the rest as JSON.stringify does", () => {
    assert.equal(
      bigIntJson.stringify({ id: 12345678901234567890n, list: [1n, undefined, "x"] }),
      '{"id":12345678901234567890,"list":[1,null,"x"]}',
    );
    const value = { a: [1, "two", { three: 3.5 }], b: null, skipped: undefined, when: new Date(0) };
    assert.equal(bigIntJson.stringify(value), JSON.stringify(value));
    assert.throws(() => bigIntJson.stringify({ n: Number.POSITIVE_INFINITY }), TypeError);
    const cyclic: Record<string, unknown> = {};
    cyclic["self"] = cyclic;
    assert.throws(() => bigIntJson.stringify(cyclic), TypeError);
  });
});

describe("standardJson", () => {
  test("is JSON.parse, and refuses NaN, infinities and bigints instead of sending something else", () => {
    assert.deepEqual(standardJson.parse('{"a":[1]}'), { a: [1] });
    assert.equal(standardJson.stringify({ a: 1 }), '{"a":1}');
    assert.throws(() => standardJson.stringify({ n: Number.NaN }), TypeError);
    assert.throws(() => standardJson.stringify([1n]), TypeError);
    assert.throws(() => standardJson.stringify(undefined), TypeError);
  });
});

describe("big integers through a server", () => {
  let server: GraphwireServer;
  before(async () => {
    server = await startGraphwire();
  });
  after(async () => {
    await server?.stop();
  });

  test("bigIntJson keeps them exact both ways; standardJson reads them as the nearest double", async () => {
    const exact = new Client(server.address, { json: bigIntJson });
    const plain = new Client(server.address);
    try {
      const big = 12345678901234567890n;
      // LangChain messages keep extra data in additional_kwargs
      const input = { messages: [{ role: "user", content: "hello", additional_kwargs: { order: big, small: 7 } }] };
      type Extra = { messages: { additional_kwargs: Record<string, unknown> }[] };
      const result = await exact.invoke<Extra>("reminders", "big", input).result();
      assert.equal(result.values?.messages[0]?.additional_kwargs["order"], big);
      assert.equal(result.values?.messages[0]?.additional_kwargs["small"], 7, "safe integers stay numbers");

      const lossy = await plain.getState<Extra>("reminders", "big");
      const order = lossy.values.messages[0]?.additional_kwargs["order"];
      assert.equal(order, Number(big));
      assert.notEqual(BigInt(order as number), big, "JSON.parse loses digits past 2^53");
    } finally {
      exact.close();
      plain.close();
    }
  });
});

describe("errors", () => {
  test("each status code has its own GraphwireError subclass", () => {
    const seen = new Set<string>();
    for (const [name, code] of Object.entries(Code)) {
      const error = errorForCode(code, "why");
      assert.ok(error instanceof GraphwireError);
      assert.equal(error.message, "why");
      if (code === Code.OK) {
        assert.ok(error instanceof UnknownError, "OK is not an error: UNKNOWN");
        continue;
      }
      assert.equal(error.code, code);
      assert.equal(error.codeName, name);
      const expected = name
        .toLowerCase()
        .replace(/(^|_)(\w)/g, (_, __, c: string) => c.toUpperCase())
        .concat("Error");
      assert.equal(error.name, expected);
      assert.equal(error.constructor, (graphwire as Record<string, unknown>)[expected], `${expected} is exported`);
      seen.add(error.name);
    }
    assert.equal(seen.size, 16);
    assert.ok(errorForCode(99, "?") instanceof UnknownError);
    assert.ok(new NotFoundError("gone") instanceof GraphwireError);
    assert.equal(String(new NotFoundError("gone")), "NotFoundError: gone");
  });
});

describe("the package", () => {
  test("exports what the README documents", () => {
    for (const name of [
      "Client",
      "EventKind",
      "FinishReason",
      "Durability",
      "Code",
      "GraphwireError",
      "bigIntJson",
      "standardJson",
      "errorForCode",
    ]) {
      assert.ok(name in graphwire, name);
    }
    assert.equal(graphwire.EventKind.MESSAGE_CHUNK, "message_chunk");
    assert.equal(graphwire.FinishReason.INTERRUPT, "INTERRUPT");
  });

  test("VERSION is package.json's version", () => {
    const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    assert.equal(VERSION, manifest.version);
  });
});
