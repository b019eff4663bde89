// Every listed thread at once, one block each: its label and where it is
// (running at a node, waiting at a question, or when it was last written),
// its calls on the time line the blocks share (lanes.js), and its row of
// versions (versions.js). The selected thread's block is highlighted and
// its row drawn with short ids.
//
// A block reads its thread's versions when it first scrolls into view (so a
// list of hundreds of threads reads only what is seen), a few at a time;
// live events then add versions to it, and a thread's block is redrawn only
// when what it shows changed. A row longer than COLLAPSED columns shows its
// newest ones, with a button for the older; every row is scrolled to its
// newest version.

import { el, ago, json, shortIds, threadColor } from "./util.js";
import { layoutVersions, renderVersions } from "./versions.js";

const COLLAPSED = 12;
const READ_AT_ONCE = 4;

// What a thread is called on the page: its metadata's user or title when it
// has one (the server's `label`), else its id. One place to change.
export function threadLabel(t) {
  return (t && t.label) || (t && t.thread_id) || "";
}

export class ThreadRows {
  // host: the <ul>; scroller: the element that scrolls it; ctx: {getJson, graph(), selected(),
  // selectedVersion(), runningNodes(thread), onSelectThread(thread), onSelectVersion(thread, id), onError}
  constructor(host, scroller, ctx) {
    Object.assign(this, { host, scroller, ctx });
    this.blocks = new Map(); // thread_id -> block
    this.queue = [];
    this.reading = 0;
    this.observer = new IntersectionObserver((entries) => this.seen(entries), { root: scroller, rootMargin: "200px 0px" });
  }

  // A new graph: forget every block.
  reset() {
    for (const b of this.blocks.values()) this.observer.unobserve(b.li);
    this.blocks = new Map();
    this.queue = [];
    this.host.replaceChildren();
  }

  block(t) {
    let b = this.blocks.get(t.thread_id);
    if (!b) {
      const id = t.thread_id;
      const head = el("div", { class: "row-head" });
      const calls = el("div", { class: "lane", "data-thread": id });
      const versions = el("div", { class: "versions" });
      const li = el(
        "li",
        {
          "data-thread": id,
          tabindex: 0,
          onkeydown: (e) => e.target === li && e.key === "Enter" && this.ctx.onSelectThread(id),
          onclick: (e) => !e.target.closest("g.version, button, .lane .seg") && this.ctx.onSelectThread(id),
        },
        head,
        calls,
        versions,
      );
      b = { id, li, head, calls, versions, info: t, refs: null, early: [], truncated: false, reading: false, expanded: false, sig: "" };
      this.blocks.set(id, b);
      this.observer.observe(li);
    }
    b.info = t;
    return b;
  }

  // Draws the list: `threads` in order (each {thread_id, label, updated_at, waiting}).
  show(threads) {
    const items = threads.map((t) => this.block(t));
    const keep = new Set(items.map((b) => b.id));
    for (const [id, b] of this.blocks) {
      if (!keep.has(id)) {
        this.observer.unobserve(b.li);
        this.blocks.delete(id);
      }
    }
    for (const b of items) this.drawHead(b);
    if (items.length !== this.host.children.length || items.some((b, i) => this.host.children[i] !== b.li)) {
      this.host.replaceChildren(...items.map((b) => b.li));
    }
    for (const b of items) this.drawRow(b);
    const sel = this.blocks.get(this.ctx.selected());
    if (sel && !sel.refs) this.read(sel);
  }

  drawHead(b) {
    const t = b.info;
    const { color } = threadColor(b.id);
    const at = this.ctx.runningNodes(b.id);
    const selected = b.id === this.ctx.selected();
    b.li.className = `${selected ? "selected" : ""}${at ? " running" : t.waiting ? " waiting" : ""}`;
    b.head.replaceChildren(
      el("span", { class: "swatch", style: `background:${color}` }),
      el("span", { class: "thread-id", title: b.id }, threadLabel(t)),
      at
        ? el("span", { class: "at", style: `color:${color}` }, `▶ ${at.join(", ") || "starting"}`)
        : t.waiting
          ? el("span", { class: "waiting", title: json(t.waiting.value) }, `? waiting at ${t.waiting.node}`)
          : el("span", { class: "when" }, ago(t.updated_at)),
      t.status && !at && !t.waiting ? el("span", { class: `status ${t.status}` }, t.status) : null,
      t.metadata && Object.keys(t.metadata).length
        ? el("span", { class: "meta", title: json(t.metadata) }, json(t.metadata))
        : null,
    );
  }

  drawRow(b) {
    if (!b.refs) {
      if (!b.versions.firstChild) b.versions.replaceChildren(el("p", { class: "note" }, "…"));
      return;
    }
    const running = this.ctx.runningNodes(b.id);
    const selected = b.id === this.ctx.selected();
    const chosen = selected ? this.ctx.selectedVersion() : null;
    const last = b.refs.at(-1);
    const sig = [b.refs.length, last && last.checkpoint_id, selected, chosen, running ? `r:${running.join(",")}` : "-", b.expanded].join("|");
    if (sig === b.sig) return;
    b.sig = sig;
    if (!b.refs.length) {
      b.versions.replaceChildren(el("p", { class: "note" }, running ? "Running: no version saved yet." : "No versions."));
      return;
    }
    const { color } = threadColor(b.id);
    const layout = layoutVersions(b.refs);
    const fromCol = !b.expanded && layout.cols > COLLAPSED ? layout.cols - COLLAPSED : 0;
    const box = el("div", { class: "row-scroll" });
    renderVersions(
      box,
      b.refs,
      {
        color,
        selected: chosen,
        running,
        compact: !selected,
        fromCol,
        short: selected ? shortIds(b.refs.map((v) => v.checkpoint_id)) : null,
        onSelect: (id) => this.ctx.onSelectVersion(b.id, id),
      },
      layout,
    );
    const parts = [];
    if (fromCol) {
      parts.push(
        el("button", { class: "older", title: "show the older versions", onclick: () => ((b.expanded = true), this.drawRow(b)) }, `⋯ ${fromCol} older`),
      );
    }
    if (b.truncated) parts.push(el("p", { class: "note" }, `Only the newest ${b.refs.length} versions are shown (the server's max_history).`));
    b.versions.replaceChildren(...parts, box);
    box.scrollLeft = box.scrollWidth; // the newest in view
  }

  // -- reading versions ------------------------------------------------------------

  seen(entries) {
    for (const entry of entries) {
      const b = [...this.blocks.values()].find((x) => x.li === entry.target);
      if (b) b.visible = entry.isIntersecting;
      if (b && entry.isIntersecting && !b.refs && !b.reading) this.read(b);
    }
  }

  read(b) {
    if (b.reading) return;
    b.reading = true;
    this.queue.push(b);
    this.pump();
  }

  pump() {
    while (this.reading < READ_AT_ONCE && this.queue.length) {
      const b = this.queue.shift();
      this.reading++;
      this.load(b).finally(() => {
        this.reading--;
        this.pump();
      });
    }
  }

  async load(b) {
    const graph = this.ctx.graph();
    try {
      const res = await this.ctx.getJson("/api/history", { graph, thread: b.id });
      if (graph !== this.ctx.graph()) return;
      b.refs = res.versions;
      b.truncated = res.truncated;
    } catch (err) {
      if (err.status === 404) b.refs = [];
      else this.ctx.onError(err);
    } finally {
      b.reading = false;
    }
    // Versions told saved while the read was on its way, which it may have missed.
    if (b.refs) for (const ref of b.early) if (!b.refs.some((v) => v.checkpoint_id === ref.checkpoint_id)) b.refs.push(ref);
    b.early = [];
    if (this.blocks.get(b.id) === b) this.drawRow(b);
  }

  // -- what live events change -------------------------------------------------

  // The threads whose blocks are in view (or nearly).
  inView() {
    return [...this.blocks.values()].filter((b) => b.visible).map((b) => b.id);
  }

  laneOf(thread) {
    const b = this.blocks.get(thread);
    return b ? b.calls : null;
  }

  versionsOf(thread) {
    const b = this.blocks.get(thread);
    return b && b.refs ? b.refs : [];
  }

  saved(thread, ref) {
    const b = this.blocks.get(thread);
    if (!b) return;
    if (!b.refs) {
      if (b.reading) b.early.push({ ...ref, interrupts: [] }); // its read may have missed it: kept for it
      return;
    }
    if (!b.refs.some((v) => v.checkpoint_id === ref.checkpoint_id)) b.refs.push({ ...ref, interrupts: [] });
    this.drawRow(b);
  }

  // The thread's versions, read now if they are not yet.
  async ensure(thread) {
    const b = this.blocks.get(thread);
    if (b && !b.refs) {
      b.reading = true;
      await this.load(b);
    }
    return this.versionsOf(thread);
  }

  // Read the thread's versions again (a run ended: its last version's interrupts are known now).
  async reread(thread) {
    const b = this.blocks.get(thread);
    if (!b || (!b.refs && thread !== this.ctx.selected())) return;
    b.reading = false;
    await this.load(b);
  }

  redraw(thread) {
    const b = this.blocks.get(thread);
    if (b) {
      this.drawHead(b);
      this.drawRow(b);
    }
  }

  redrawAll() {
    for (const b of this.blocks.values()) {
      this.drawHead(b);
      this.drawRow(b);
    }
  }
}
