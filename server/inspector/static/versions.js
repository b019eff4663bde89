// A thread's versions: one row, oldest to newest, along the current branch
// (the newest version and its ancestors), each linked to its parent; the
// versions off that branch drawn in rows above it, each branch starting one
// column right of the version it forked from, linked to it by a fork link.
//
// Branches are found as `graphwire history` prints them: at a version with
// several children the newest child continues the branch, the older ones
// start branches of their own.

import { svg, nextLabel } from "./util.js";

const COL_W = 92;
const ROW_H = 64;
const R = 11;
const LEFT = 40;
const TOP = 30;

export function layoutVersions(versions) {
  const byId = new Map(versions.map((v) => [v.checkpoint_id, v]));
  const children = new Map();
  for (const v of versions) {
    const parent = byId.has(v.parent_id) ? v.parent_id : null;
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(v.checkpoint_id);
  }
  for (const list of children.values()) list.sort();
  const latest = versions.length ? versions.map((v) => v.checkpoint_id).sort().at(-1) : null;

  const main = [];
  for (let id = latest; id && byId.has(id); id = byId.get(id).parent_id) main.unshift(id);
  const onMain = new Set(main);

  const placed = new Map();
  const links = [];
  const taken = new Map(); // row -> [[from, to]] column spans in use
  main.forEach((id, col) => placed.set(id, { ref: byId.get(id), col, row: 0 }));
  main.slice(1).forEach((id, i) => links.push({ from: main[i], to: id, fork: false }));

  const free = (row, a, b) => !(taken.get(row) || []).some(([x, y]) => a <= y + 1 && x <= b + 1);

  const placeBranch = (start, parent) => {
    const chain = [start];
    const later = [];
    for (let cur = start; ; ) {
      const kids = children.get(cur) || [];
      if (!kids.length) break;
      for (const k of kids.slice(0, -1)) later.push(k);
      cur = kids.at(-1);
      chain.push(cur);
    }
    const from = parent ? parent.col + 1 : 0;
    const to = from + chain.length - 1;
    let row = parent ? parent.row + 1 : 1;
    while (!free(row, from, to)) row++;
    if (!taken.has(row)) taken.set(row, []);
    taken.get(row).push([from, to]);
    chain.forEach((id, i) => placed.set(id, { ref: byId.get(id), col: from + i, row }));
    if (parent) links.push({ from: parent.ref.checkpoint_id, to: start, fork: true });
    chain.slice(1).forEach((id, i) => links.push({ from: chain[i], to: id, fork: false }));
    for (const k of later) placeBranch(k, placed.get(byId.get(k).parent_id));
  };

  for (const id of main) {
    for (const k of children.get(id) || []) if (!onMain.has(k)) placeBranch(k, placed.get(id));
  }
  for (const root of children.get(null) || []) if (!placed.has(root)) placeBranch(root, null);

  let cols = 0;
  let rows = 0;
  for (const p of placed.values()) {
    cols = Math.max(cols, p.col + 1);
    rows = Math.max(rows, p.row + 1);
  }
  return { placed, links, latest, cols, rows, children };
}

// Draws the rows into ``host``. ``opts``: color/tint of the thread,
// ``selected`` (the opened version's id), ``running`` (nodes a live run of
// this thread is at, or null), ``short`` (id → short id), ``onSelect(id)``,
// ``fromCol`` (draw only the columns from this one on: a long row collapsed
// to its newest versions), ``compact`` (no short ids: a row not selected).
export function renderVersions(host, versions, opts, layout = layoutVersions(versions)) {
  const from = opts.fromCol || 0;
  const ghost = opts.running && layout.latest ? layout.placed.get(layout.latest) : null;
  const cols = layout.cols - from + (ghost ? 1 : 0);
  const width = LEFT * 2 + Math.max(cols - 1, 0) * COL_W + 40;
  const height = TOP + (layout.rows - 1) * ROW_H + 12 + (opts.compact ? 34 : 44);
  const xOf = (col) => LEFT + (col - from) * COL_W;
  const yOf = (row) => TOP + (layout.rows - 1 - row) * ROW_H + 12;
  const shown = (id) => layout.placed.get(id).col >= from;

  const root = svg("svg", { class: "versions", width, height, viewBox: `0 0 ${width} ${height}` });
  const defs = svg("defs");
  const marker = svg("marker", { id: "varrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" });
  marker.append(svg("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrowhead" }));
  defs.append(marker);
  root.append(defs);

  const linkLayer = svg("g", { class: "links" });
  for (const link of layout.links) {
    if (!shown(link.from) || !shown(link.to)) continue;
    const a = layout.placed.get(link.from);
    const b = layout.placed.get(link.to);
    const x0 = xOf(a.col);
    const y0 = yOf(a.row);
    const x1 = xOf(b.col);
    const y1 = yOf(b.row);
    let d;
    if (a.row === b.row) d = `M ${x0 + R + 2} ${y0} L ${x1 - R - 3} ${y1}`;
    else d = `M ${x0 + R * 0.7} ${y0 - R * 0.7} C ${x0 + COL_W * 0.45} ${y0 - ROW_H * 0.2}, ${x1 - COL_W * 0.6} ${y1}, ${x1 - R - 3} ${y1}`;
    linkLayer.append(
      svg("path", {
        d,
        class: link.fork ? "link fork-link" : "link",
        "data-from": link.from,
        "data-to": link.to,
        "marker-end": "url(#varrow)",
      }),
    );
  }
  root.append(linkLayer);

  const nodeLayer = svg("g", { class: "version-nodes" });
  for (const [id, p] of layout.placed) {
    if (p.col < from) continue;
    const v = p.ref;
    const isLatest = id === layout.latest;
    const classes = ["version", p.row === 0 ? "current" : "off-branch"];
    if (isLatest) classes.push("latest");
    if (id === opts.selected) classes.push("selected");
    const answered = (layout.children.get(id) || []).length > 0;
    if (v.interrupts && v.interrupts.length) classes.push(answered ? "interrupted answered" : "interrupted");
    if (isLatest && opts.running) classes.push("running");
    const g = svg("g", {
      class: classes.join(" "),
      "data-id": id,
      "data-row": p.row,
      "data-col": p.col,
      "data-step": v.step,
      "data-source": v.source,
      "data-next": (v.next || []).join(","),
      transform: `translate(${xOf(p.col)}, ${yOf(p.row)})`,
      tabindex: 0,
      role: "button",
    });
    const title = svg("title");
    title.textContent = `${id}\nstep ${v.step} · ${v.source}${v.created_at ? "\n" + v.created_at : ""}`;
    g.append(title);
    g.append(svg("circle", { class: "hit", r: R + 8 }));
    const c = svg("circle", { class: "dot", r: R });
    c.style.stroke = p.row === 0 ? opts.color : "";
    if (isLatest) c.style.fill = opts.color;
    g.append(c);
    const step = svg("text", { class: "step", y: -R - 7, "text-anchor": "middle" });
    step.textContent = v.source && v.source !== "loop" ? `${v.step} · ${v.source}` : `${v.step}`;
    g.append(step);
    const label = svg("text", { class: "next-label", y: R + 17, "text-anchor": "middle" });
    label.textContent = nextLabel(v.next);
    g.append(label);
    if (!opts.compact) {
      const short = svg("text", { class: "short-id", y: R + 30, "text-anchor": "middle" });
      short.textContent = (opts.short && opts.short.get(id)) || id.slice(0, 8);
      g.append(short);
    }
    if (v.interrupts && v.interrupts.length) {
      const badge = svg("g", { class: "badge", transform: `translate(${R - 1}, ${-R + 1})` });
      badge.append(svg("circle", { r: 6.5 }));
      const q = svg("text", { y: 3.5, "text-anchor": "middle" });
      q.textContent = "?";
      badge.append(q);
      g.append(badge);
    }
    g.addEventListener("click", () => opts.onSelect(id));
    g.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") opts.onSelect(id);
    });
    nodeLayer.append(g);
  }
  if (ghost) {
    // Where the live run is: the version it will save next.
    const x = xOf(ghost.col + 1);
    const y = yOf(ghost.row);
    nodeLayer.append(svg("path", { class: "link pending", d: `M ${xOf(ghost.col) + R + 2} ${y} L ${x - R - 3} ${y}` }));
    const g = svg("g", { class: "ghost", transform: `translate(${x}, ${y})` });
    const c = svg("circle", { r: R });
    c.style.stroke = opts.color;
    g.append(c);
    const t = svg("text", { class: "next-label", y: R + 17, "text-anchor": "middle" });
    t.textContent = `running ${opts.running.join(", ")}`;
    t.style.fill = opts.color;
    g.append(t);
    nodeLayer.append(g);
  }
  root.append(nodeLayer);
  host.replaceChildren(root);
  return layout;
}
