// The state a running call holds, beside the graph: for each run in flight,
// a card in its thread's colour naming the node it is at, its values as of
// its last step (messages as a transcript), and under the node what it is
// calling: a chat model's streamed tokens, a tool with its arguments and
// result (waiting, until it returns), a subgraph's nodes. A run's card goes
// when its call returns: between calls the state lives in the checkpointer
// alone.
//
// Fed by the event stream: "values" per step, "inner" for what a node calls
// (server/_hub.py), node_started/finished, and run_finished.

import { el, json, threadColor } from "./util.js";
import { isMessages, messageText, transcript } from "./messages.js";

const SHOWN_MESSAGES = 4;

function argsText(args) {
  if (args && typeof args === "object" && !Array.isArray(args)) {
    return Object.entries(args).map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`).join(", ");
  }
  return args === undefined || args === null ? "" : JSON.stringify(args);
}

function outputText(out) {
  if (out && typeof out === "object" && "content" in out) return messageText(out);
  return typeof out === "string" ? out : JSON.stringify(out);
}

export class HeldPanel {
  constructor(host, { label }) {
    Object.assign(this, { host, label });
    this.runs = new Map(); // run_id -> {thread_id, nodes, values, step, calls: Map key -> child}
  }

  run(msg) {
    let r = this.runs.get(msg.run_id);
    if (!r) {
      r = { thread_id: msg.thread_id, nodes: [], values: null, step: null, calls: new Map() };
      this.runs.set(msg.run_id, r);
    }
    r.nodes = msg.nodes || r.nodes;
    return r;
  }

  // One event of the stream (of the graph on show).
  take(msg) {
    if (msg.type === "run_finished") {
      this.runs.delete(msg.run_id);
      return this.draw();
    }
    const r = this.run(msg);
    if (msg.type === "values") {
      r.values = msg.values;
      r.bytes = msg.values_bytes || null; // too large to send: only its size came
      r.step = msg.step;
    } else if (msg.type === "inner") this.inner(r, msg);
    else if (msg.type === "node_started") {
      for (const [k, c] of r.calls) if (c.node === msg.node && c.done) r.calls.delete(k); // a node run again starts afresh
    } else if (msg.type === "node_finished") {
      for (const c of r.calls.values()) if (c.node === msg.node) c.done = true;
    }
    this.draw();
  }

  inner(r, msg) {
    // The node of this run the call belongs to: a subgraph's events name the parent's in their namespace.
    const node = msg.ns.length ? msg.ns[0].split(":")[0] : msg.node;
    if (msg.kind === "message") {
      const key = `m:${msg.ns.join("|")}:${msg.task_id}`;
      const c = r.calls.get(key) || { kind: "model", node, text: "", done: false };
      c.text += msg.text;
      r.calls.set(key, c);
    } else if (msg.kind === "tool") {
      const p = msg.payload || {};
      const key = `t:${p.tool_call_id}`;
      const c = r.calls.get(key) || { kind: "tool", node, name: p.tool_name, args: p.input, done: false, from: "event" };
      if (p.event === "tool-finished") Object.assign(c, { result: outputText(p.output), returned: true });
      if (p.event === "tool-error") Object.assign(c, { result: p.message, returned: true, error: true });
      r.calls.set(key, c);
    } else if (msg.kind === "task_started") {
      r.calls.set(`s:${msg.ns.join("|")}:${msg.task_id}`, { kind: "subgraph", node, inner: msg.node, ns: msg.ns, done: false });
    } else if (msg.kind === "task_finished") {
      const c = r.calls.get(`s:${msg.ns.join("|")}:${msg.task_id}`);
      if (c) Object.assign(c, { returned: true, error: msg.error });
    }
  }

  // A tool call the run's last message asked for, with no tool event yet: waiting on it.
  pending(r) {
    const messages = r.values && Object.values(r.values).find(isMessages);
    const last = messages && messages.at(-1);
    if (!last || !(last.tool_calls || []).length || !r.nodes.includes("tools")) return [];
    const known = new Set([...r.calls.values()].filter((c) => c.kind === "tool").map((c) => c.name));
    return last.tool_calls
      .map((c) => (c.function ? { name: c.function.name, args: c.function.arguments } : { name: c.name, args: c.args }))
      .filter((c) => !known.has(c.name))
      .map((c) => ({ kind: "tool", node: "tools", ...c, done: false, from: "message" }));
  }

  callView(c) {
    const state = c.returned || c.done ? (c.error ? "error" : "returned") : "waiting";
    if (c.kind === "model") return el("li", { class: `inner model ${state}`, "data-kind": "model" }, el("b", {}, "chat model"), " ", el("span", { class: "tokens" }, c.text));
    if (c.kind === "subgraph") return el("li", { class: `inner subgraph ${state}`, "data-kind": "subgraph" }, el("b", {}, "subgraph"), ` ${c.ns.join(" › ")} › ${c.inner}`);
    return el(
      "li",
      // from: "event" (the tool's own events), "message" (the tool calls the last reply asked for, no event yet)
      { class: `inner tool ${state}`, "data-kind": "tool", "data-tool": c.name, "data-from": c.from },
      el("b", {}, `tool ${c.name}`),
      `(${argsText(c.args)})`,
      state === "waiting" ? el("span", { class: "wait" }, " … waiting") : el("span", { class: "result" }, ` → ${c.result ?? ""}`),
    );
  }

  card(runId, r) {
    const { color, tint } = threadColor(r.thread_id);
    const nodes = r.nodes.length ? r.nodes : ["starting"];
    const calls = [...r.calls.values(), ...this.pending(r)];
    const values = r.values;
    const messages = values && Object.entries(values).find(([, v]) => isMessages(v));
    const rest = values ? Object.fromEntries(Object.entries(values).filter(([, v]) => !isMessages(v))) : {};
    return el(
      "div",
      { class: "held-card", "data-run": runId, "data-thread": r.thread_id, style: `border-color:${color};background:${tint}` },
      el("p", { class: "held-head" }, el("span", { class: "swatch", style: `background:${color}` }), el("b", {}, this.label(r.thread_id)), " ▶ ", el("span", { class: "held-node" }, nodes.join(", "))),
      calls.length ? el("ul", { class: "inner-calls" }, ...calls.map((c) => this.callView(c))) : null,
      values === null
        ? el("p", { class: "note" }, r.bytes ? `its values: ${r.bytes} characters of JSON, too large to send here (open the version)` : "no step yet")
        : el(
            "div",
            { class: "held-values", "data-step": String(r.step) },
            messages ? transcript(messages[1].slice(-SHOWN_MESSAGES)) : null,
            Object.keys(rest).length ? el("pre", {}, json(rest)) : null,
          ),
    );
  }

  // live: the runs in flight ({run_id, thread_id, nodes}) of the graph on show.
  sync(live) {
    const keep = new Set(live.map((r) => r.run_id));
    for (const id of [...this.runs.keys()]) if (!keep.has(id)) this.runs.delete(id);
    for (const r of live) this.run(r);
    this.draw();
  }

  draw() {
    const cards = [...this.runs].map(([id, r]) => this.card(id, r));
    this.host.replaceChildren(...(cards.length ? cards : [el("p", { class: "note" }, "No call running: the state lives in the checkpointer alone.")]));
  }
}
