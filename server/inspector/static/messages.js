// Values as a reader wants them: a list of chat messages (LangChain's
// messages as the server encodes them, {type, content, tool_calls, …}, or
// role-shaped dicts, {role, content}) drawn as a transcript (who said what,
// the tool calls a reply made with their arguments, and each tool's result),
// with the raw JSON one click away; any other value as JSON.

import { el, json } from "./util.js";

const ROLES = { human: "user", user: "user", ai: "assistant", assistant: "assistant", tool: "tool", system: "system", function: "tool" };

function roleOf(m) {
  if (!m || typeof m !== "object" || Array.isArray(m)) return null;
  const kind = typeof m.type === "string" ? m.type.replace(/MessageChunk$|Message$/, "").toLowerCase() : null;
  if (kind && ROLES[kind] && "content" in m) return ROLES[kind];
  if (typeof m.role === "string" && ROLES[m.role] && "content" in m) return ROLES[m.role];
  return null;
}

export function isMessages(value) {
  return Array.isArray(value) && value.length > 0 && value.every((m) => roleOf(m) !== null);
}

export function messageText(m) {
  const c = m.content;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((p) => (typeof p === "string" ? p : p && typeof p.text === "string" ? p.text : "")).join("");
  return c === null || c === undefined ? "" : JSON.stringify(c);
}

// [{name, args, id}] whichever way the message spells them.
function toolCalls(m) {
  return (m.tool_calls || []).map((c) => {
    if (c.function) {
      let args = c.function.arguments;
      try {
        args = JSON.parse(args);
      } catch {
        // shown as the text it is
      }
      return { name: c.function.name, args, id: c.id };
    }
    return { name: c.name, args: c.args, id: c.id };
  });
}

function argsText(args) {
  if (args && typeof args === "object" && !Array.isArray(args)) {
    return Object.entries(args).map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`).join(", ");
  }
  return args === undefined ? "" : JSON.stringify(args);
}

function messageItem(m) {
  const role = roleOf(m);
  const text = messageText(m);
  const calls = role === "assistant" ? toolCalls(m) : [];
  return el(
    "li",
    { class: `msg role-${role}`, "data-role": role },
    el("span", { class: "role" }, role === "tool" && m.name ? `tool · ${m.name}` : role),
    text ? el("div", { class: "text" }, text) : null,
    ...calls.map((c) =>
      el("div", { class: "tool-call", "data-tool": c.name }, "→ ", el("b", {}, c.name), `(${argsText(c.args)})`, c.id ? el("code", { class: "call-id" }, c.id) : null),
    ),
    role === "tool" && m.tool_call_id ? el("div", { class: "result-of" }, "result of ", el("code", {}, m.tool_call_id)) : null,
  );
}

// A transcript of `messages`, with their raw JSON folded under it.
export function transcript(messages) {
  return el(
    "div",
    { class: "transcript" },
    el("ol", { class: "messages" }, ...messages.map(messageItem)),
    el("details", { class: "raw" }, el("summary", {}, "raw JSON"), el("pre", {}, json(messages))),
  );
}

// A value as the detail shows it: messages as a transcript, anything else as JSON.
export function valueView(value) {
  return isMessages(value) ? transcript(value) : el("pre", {}, json(value));
}

// A state's values: each key that holds messages as a transcript; the rest as JSON.
export function valuesView(values) {
  if (!values || typeof values !== "object" || Array.isArray(values)) return el("pre", {}, json(values));
  const keys = Object.keys(values);
  if (!keys.some((k) => isMessages(values[k]))) return el("pre", {}, json(values));
  return el(
    "div",
    { class: "values" },
    ...keys.map((k) => el("div", { class: "value", "data-key": k }, el("p", { class: "key" }, el("code", {}, k)), valueView(values[k]))),
  );
}
