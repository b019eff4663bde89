// Every shown thread's calls on one shared time line, each in its thread's
// block beside its label: a run is a bar from its call to its return (an
// open one reaches "now" and its edge moves with the clock), coloured in its
// thread's colour, titled with the call and why it returned (calls.js's words);
// the newest call is written out beside the track, with its arguments.
//
// Runs come from /api/runs (the run records, so every replica's show): read
// for a thread when its block is seen, again when this server's events say
// one of its runs started or ended, and every few seconds for the blocks in
// view (a run on another replica sends this server no event).

import { el, threadColor } from "./util.js";
import { callLabel, endLabel } from "./calls.js";

const TICK_MS = 250;
const READ_EVERY = 12; // ticks between re-reads of the blocks in view (3 s)
const MIN_SPAN_MS = 1000;

export class Lanes {
  // ctx: {getJson, graph(), inView() → thread ids, laneOf(thread) → element | null,
  //       versionName(thread, id) → {text, short} | null (calls.js), onError}
  constructor(ctx) {
    this.ctx = ctx;
    this.runs = new Map(); // thread -> runs (newest first)
    this.skew = 0;
    this.ticks = 0;
    this.timer = setInterval(() => this.tick(), TICK_MS);
  }

  reset() {
    this.runs = new Map();
  }

  async refresh(thread) {
    const graph = this.ctx.graph();
    let res;
    try {
      res = await this.ctx.getJson("/api/runs", { graph, thread });
    } catch (err) {
      if (err.status !== 501 && err.status !== 404) this.ctx.onError(err);
      return;
    }
    if (graph !== this.ctx.graph()) return;
    this.skew = Date.parse(res.now) - Date.now();
    this.runs.set(thread, res.runs);
    this.draw();
  }

  tick() {
    this.ticks++;
    const shown = this.ctx.inView();
    if (this.ticks % READ_EVERY === 0) for (const t of shown) this.refresh(t);
    else for (const t of shown) if (!this.runs.has(t)) this.refresh(t);
    if ([...this.runs.values()].some((rs) => rs.some((r) => !r.reason))) this.draw();
  }

  draw() {
    const now = Date.now() + this.skew;
    const shown = this.ctx.inView().filter((t) => this.runs.has(t));
    const all = shown.flatMap((t) => this.runs.get(t));
    if (!all.length) return;
    const start = (r) => Date.parse(r.started_at);
    const end = (r) => (r.ended_at ? Date.parse(r.ended_at) : now);
    const t0 = Math.min(...all.map(start));
    const t1 = Math.max(t0 + MIN_SPAN_MS, now, ...all.map(end));
    const pct = (t) => ((t - t0) / (t1 - t0)) * 100;
    for (const thread of shown) {
      const lane = this.ctx.laneOf(thread);
      if (!lane) continue;
      const { color } = threadColor(thread);
      const segs = [...this.runs.get(thread)].reverse().map((r) => {
        const open = !r.reason;
        const seg = el("span", {
          class: `seg${open ? " open" : ""} reason-${(r.reason || r.status).toLowerCase()}`,
          "data-run": r.run_id,
          "data-call": r.call,
          "data-reason": r.reason || "",
          "data-until": String(end(r)),
          title: `${r.call} ${callLabel(r)}\n→ ${endLabel(r)}`,
          style: `left:${pct(start(r)).toFixed(3)}%;width:calc(${(pct(end(r)) - pct(start(r))).toFixed(3)}% + 3px);background:${color}`,
        });
        return seg;
      });
      // The newest call in words beside the track: what it asked, and where it is or why it returned.
      const newest = this.runs.get(thread)[0];
      const name = (id) => this.ctx.versionName(thread, id);
      const asked = newest ? `${newest.call} ${callLabel(newest, name)}` : "";
      const ended = newest ? `→ ${endLabel(newest)}` : "";
      lane.replaceChildren(
        el("div", { class: "track" }, ...segs),
        el("span", { class: "caption", title: `${asked} ${ended}` }, el("span", { class: "asked" }, asked), " ", el("span", { class: "ended" }, ended)),
      );
      lane.dataset.runs = String(segs.length);
      lane.dataset.reason = newest ? newest.reason || "open" : "";
    }
  }
}
