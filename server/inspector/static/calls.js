// A thread's calls on a time line: each run one bar, from when it started to
// when it ended, labelled with the call that started it (Invoke and its
// input, Resume and its answer, Fork and the version it went back to) and
// closed with why it returned (END, INTERRUPT and the question, ERROR and
// the exception, RECURSION_LIMIT, CANCELLED). A run still open has no end:
// its bar reaches "now", and its edge moves with the clock (`tick`). A run
// that another replica continued after its own died says how many attempts
// it took. Runs come from the run records, so every replica's show, each
// with the replica that ran it.

import { el, json } from "./util.js";

const MIN_SPAN_MS = 1000;

function short(text, n = 60) {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}

function lastMessageText(value) {
  const messages = value && typeof value === "object" && Array.isArray(value.messages) ? value.messages : null;
  const last = messages && messages.at(-1);
  if (!last || typeof last !== "object") return null;
  const content = last.content;
  if (typeof content === "string") return content;
  return null;
}

function valueText(value) {
  if (value === undefined) return "";
  if (typeof value === "string") return value;
  return lastMessageText(value) ?? JSON.stringify(value);
}

// A version a call names, as the rows name it: "step 2 · agent" when the
// thread's versions are known (`name(id)` → {text, short} or null), else its
// id (whose first characters every version of a thread shares: ids are time-ordered).
function versionText(id, name) {
  const known = id && name ? name(id) : null;
  return known ? known.text : String(id || "");
}

// What the call asked, in a few words.
export function callLabel(run, name = null) {
  const a = run.call_args || {};
  switch (run.call) {
    case "Invoke":
      return a.input === undefined || a.input === null ? (a.checkpoint_id ? `from ${versionText(a.checkpoint_id, name)}` : "continue") : valueText(a.input);
    case "Resume":
      return a.resumes ? Object.values(a.resumes).map(valueText).join(", ") : valueText(a.resume);
    case "Fork":
      return [`from ${versionText(a.checkpoint_id, name)}`, a.update !== undefined && a.update !== null ? `with ${valueText(a.update)}` : null]
        .filter(Boolean)
        .join(" ");
    case "UpdateState":
      return valueText(a.update ?? a.values);
    default:
      return Object.keys(a).length ? JSON.stringify(a) : "";
  }
}

const OPEN_STATUS = { pending: "waiting for its thread", running: "running", recovering: "recovering" };

// Why the run returned (or where it is, while open).
export function endLabel(run) {
  if (!run.reason) return OPEN_STATUS[run.status] || run.status;
  switch (run.reason) {
    case "INTERRUPT":
      return run.interrupts.length ? `${run.reason} · ${valueText(run.interrupts[0].value)}` : run.reason;
    case "ERROR":
    case "RECURSION_LIMIT":
      return run.error ? `${run.reason} · ${run.error.type}: ${run.error.message}` : run.reason;
    default:
      return run.reason;
  }
}

function took(ms) {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

// `runs` newest first (as the API lists them); `now` the server's clock in ms.
export function renderCalls(host, runs, { now, replica, onSelect, versionName }) {
  if (!runs.length) {
    host.replaceChildren(el("p", { class: "note" }, "No calls recorded for this thread."));
    return;
  }
  const ordered = [...runs].reverse(); // oldest at the top
  const start = (r) => Date.parse(r.started_at);
  const end = (r) => (r.ended_at ? Date.parse(r.ended_at) : now);
  const t0 = Math.min(...ordered.map(start));
  const t1 = Math.max(t0 + MIN_SPAN_MS, ...ordered.map(end));
  const pct = (t) => `${(((t - t0) / (t1 - t0)) * 100).toFixed(3)}%`;
  const rows = ordered.map((r) => {
    const open = !r.reason;
    const here = !replica || r.replica === replica;
    const label = callLabel(r, versionName);
    const bar = el("div", {
      class: `bar${open ? " open" : ""}`,
      style: `left:${pct(start(r))};width:calc(${pct(end(r))} - ${pct(start(r))})`,
      "data-until": String(end(r)),
    });
    return el(
      "div",
      {
        class: `call reason-${(r.reason || r.status).toLowerCase()}${open ? " open" : ""}${here ? "" : " elsewhere"}`,
        "data-run": r.run_id,
        "data-call": r.call,
        "data-status": r.status,
        "data-reason": r.reason || "",
        "data-open": String(open),
        "data-replica": r.replica,
        "data-attempts": String(r.attempts),
        title: `${r.call} ${json(r.call_args)}\nrun ${r.run_id}\nreplica ${r.replica}`,
        tabindex: 0,
        onclick: () => r.checkpoint_id && onSelect && onSelect(r.checkpoint_id),
      },
      el("div", { class: "call-head" },
        el("b", { class: "call-name" }, r.call),
        el("span", { class: "call-label" }, short(label)),
        r.attempts > 1 ? el("span", { class: "attempts", title: "its replica died; another one continued it" }, `↻ ${r.attempts} attempts`) : null,
        el("span", { class: "took" }, took(end(r) - start(r))),
        el("span", { class: `replica${here ? "" : " other"}`, title: here ? "this server" : "another replica" }, here ? r.replica : `⇄ ${r.replica}`),
      ),
      el("div", { class: "track" }, bar),
      el("div", { class: "call-end" }, short(endLabel(r), 80)),
    );
  });
  const atEnd = host.scrollTop + host.clientHeight >= host.scrollHeight - 4;
  host.replaceChildren(...rows);
  if (atEnd) host.scrollTop = host.scrollHeight; // the newest call stays in sight
}

// The calls of the thread on show: read from /api/runs when a thread is
// picked, again when this server's events say one of its runs moved, and
// every few seconds (a run on another replica sends this server no event);
// while a run is open its edge is redrawn four times a second.
export class CallsPanel {
  constructor(host, { getJson, onSelect, onError, versionName }) {
    Object.assign(this, { host, getJson, onSelect, onError, versionName });
    this.runs = [];
    this.key = null;
    this.skew = 0; // the server's clock minus this page's
    this.replica = null;
    this.timers = [];
  }

  show(graph, thread) {
    this.key = thread ? { graph, thread } : null;
    this.runs = [];
    this.host.replaceChildren();
    this.schedule();
    if (this.key) this.refresh();
  }

  async refresh() {
    const key = this.key;
    if (!key) return;
    let res;
    try {
      res = await this.getJson("/api/runs", { graph: key.graph, thread: key.thread });
    } catch (err) {
      if (key !== this.key) return;
      if (err.status === 501) {
        this.host.replaceChildren(el("p", { class: "note" }, err.message));
        return;
      }
      this.onError(err);
      return;
    }
    if (key !== this.key) return;
    this.runs = res.runs;
    this.skew = Date.parse(res.now) - Date.now();
    this.replica = res.replica;
    this.draw();
    this.schedule();
  }

  draw() {
    if (!this.key) return;
    renderCalls(this.host, this.runs, { now: Date.now() + this.skew, replica: this.replica, onSelect: this.onSelect, versionName: this.versionName });
    this.host.dataset.runs = String(this.runs.length);
  }

  schedule() {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    if (!this.key) return;
    const open = this.runs.some((r) => !r.reason);
    if (open) this.timers.push(setInterval(() => this.draw(), 250));
    this.timers.push(setInterval(() => this.refresh(), open ? 1000 : 3000));
  }
}
