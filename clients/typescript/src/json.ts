/**
 * JSON payloads: how JavaScript values cross the wire.
 *
 * Every value the server sees or sends (state, inputs, updates, interrupt
 * values, metadata) is one JSON text in a `*_json` string field. A `JsonCodec` turns
 * those texts into values and back; the client's `json` option picks one.
 *
 * Big integers. graphwire keeps integers exact on the wire (Python's ints
 * have no size limit), but JavaScript's numbers are doubles: past 2^53 - 1
 * (`Number.MAX_SAFE_INTEGER`) `JSON.parse` silently rounds. So:
 *
 * - `standardJson` (the default) is `JSON.parse`/`JSON.stringify`: values are
 *   exactly what `JSON.parse` gives, and integers beyond 2^53 lose digits.
 *   It refuses to send what JSON cannot carry exactly: NaN and infinities
 *   (which `JSON.stringify` would quietly turn into `null`) and `bigint`s.
 * - `bigIntJson` reads integers outside the safe range as `bigint` (and
 *   every other number as a `number`), and writes `bigint`s as exact digits.
 *   Use it when a graph's state can hold such integers (ids, snowflakes).
 *
 * @module
 */

/** Reads and writes the JSON texts inside payloads. */
export interface JsonCodec {
  /** Parse one JSON text (any JSON value). */
  parse(text: string): unknown;
  /** Encode a value as one JSON text. Throw `TypeError` for what it cannot encode. */
  stringify(value: unknown): string;
}

function checkedReplacer(this: unknown, _key: string, value: unknown): unknown {
  if (typeof value === "number" && !Number.isFinite(value)) {
    throw new TypeError(`${value} is not valid JSON (graphwire rejects NaN and infinities)`);
  }
  if (typeof value === "bigint") {
    throw new TypeError("a bigint cannot be sent with the standard JSON codec; use `json: bigIntJson`");
  }
  return value;
}

/** `JSON.parse` and a `JSON.stringify` that refuses NaN, infinities and bigints. */
export const standardJson: JsonCodec = {
  parse: (text) => JSON.parse(text) as unknown,
  stringify(value) {
    const text = JSON.stringify(value, checkedReplacer);
    if (text === undefined) {
      throw new TypeError(`${typeof value} is not a JSON value`);
    }
    return text;
  },
};

/** Integers with 16 or more digits may be unsafe; texts without such a run take the fast path. */
const MAYBE_UNSAFE = /\d{16}/;
const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;

/**
 * Integers outside ±(2^53 - 1) as `bigint`, everything else as `JSON.parse`
 * would read it; `bigint`s written as exact digits.
 */
export const bigIntJson: JsonCodec = {
  parse(text) {
    return MAYBE_UNSAFE.test(text) ? new LosslessParser(text).parseText() : (JSON.parse(text) as unknown);
  },
  stringify(value) {
    const text = stringifyBigInt(value, "", new Set());
    if (text === undefined) {
      throw new TypeError(`${typeof value} is not a JSON value`);
    }
    return text;
  },
};

/**
 * A strict JSON parser that differs from `JSON.parse` only in reading unsafe
 * integers as `bigint`. Strings and numbers are delegated to `JSON.parse`,
 * token by token, so escapes and number syntax are checked exactly as there.
 */
class LosslessParser {
  private pos = 0;

  constructor(private readonly text: string) {}

  parseText(): unknown {
    const value = this.value();
    this.skipWhitespace();
    if (this.pos !== this.text.length) this.fail("unexpected text after the value");
    return value;
  }

  private value(): unknown {
    this.skipWhitespace();
    const c = this.text[this.pos];
    switch (c) {
      case "{":
        return this.object();
      case "[":
        return this.array();
      case '"':
        return this.string();
      case "t":
        return this.literal("true", true);
      case "f":
        return this.literal("false", false);
      case "n":
        return this.literal("null", null);
      default:
        return this.number();
    }
  }

  private object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.pos++; // {
    this.skipWhitespace();
    if (this.text[this.pos] === "}") {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.pos] !== '"') this.fail("expected a property name");
      const key = this.string();
      this.skipWhitespace();
      this.expect(":");
      // defineProperty, not assignment: a "__proto__" key must stay data, as in JSON.parse.
      Object.defineProperty(out, key, { value: this.value(), enumerable: true, writable: true, configurable: true });
      this.skipWhitespace();
      if (this.text[this.pos] === ",") {
        this.pos++;
        continue;
      }
      this.expect("}");
      return out;
    }
  }

  private array(): unknown[] {
    const out: unknown[] = [];
    this.pos++; // [
    this.skipWhitespace();
    if (this.text[this.pos] === "]") {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.skipWhitespace();
      if (this.text[this.pos] === ",") {
        this.pos++;
        continue;
      }
      this.expect("]");
      return out;
    }
  }

  private string(): string {
    const start = this.pos;
    this.pos++; // opening quote
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x22) {
        this.pos++;
        return JSON.parse(this.text.slice(start, this.pos)) as string;
      }
      this.pos += c === 0x5c ? 2 : 1; // a backslash escapes the next character
    }
    return this.fail("unterminated string");
  }

  private number(): number | bigint {
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.text);
    if (match === null) return this.fail("unexpected character");
    this.pos += match[0].length;
    const n = Number(match[0]);
    const isInteger = match[1] === undefined && match[2] === undefined;
    return isInteger && !Number.isSafeInteger(n) ? BigInt(match[0]) : n;
  }

  private literal<T>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) this.fail("unexpected character");
    this.pos += word.length;
    return value;
  }

  private expect(char: string): void {
    if (this.text[this.pos] !== char) this.fail(`expected '${char}'`);
    this.pos++;
  }

  private skipWhitespace(): void {
    for (;;) {
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.pos++;
      else return;
    }
  }

  private fail(why: string): never {
    throw new SyntaxError(`${why} in JSON at position ${this.pos}`);
  }
}

/** `JSON.stringify`'s algorithm (toJSON, skipped members, cycle check), plus bigints as digits. */
function stringifyBigInt(value: unknown, key: string, seen: Set<object>): string | undefined {
  if (value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    value = (value as { toJSON(key: string): unknown }).toJSON(key);
  }
  if (value instanceof Number || value instanceof String || value instanceof Boolean || value instanceof BigInt) {
    value = value.valueOf(); // boxed primitives encode as their value, as in JSON.stringify
  }
  switch (typeof value) {
    case "bigint":
      return value.toString();
    case "number":
      checkedReplacer(key, value);
      return JSON.stringify(value);
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
  }
  if (value === null) return "null";
  const object = value as object;
  if (seen.has(object)) throw new TypeError("cannot encode a cyclic structure as JSON");
  seen.add(object);
  try {
    if (Array.isArray(object)) {
      const items = object.map((item, i) => stringifyBigInt(item, String(i), seen) ?? "null");
      return `[${items.join(",")}]`;
    }
    const members: string[] = [];
    for (const [k, v] of Object.entries(object)) {
      const encoded = stringifyBigInt(v, k, seen);
      if (encoded !== undefined) members.push(`${JSON.stringify(k)}:${encoded}`);
    }
    return `{${members.join(",")}}`;
  } finally {
    seen.delete(object);
  }
}
