// Drawing a graph: a layered layout (top to bottom) and its SVG.
//
// A subgraph node (one whose node carries its graph's own drawing,
// `subgraph`) is drawn collapsed, with a ⊕: clicking it expands it in place.
// Expanded, its nodes replace it, with ids `node:child` (as LangGraph's
// xray names them), inside a frame titled with the node's name (click the
// title to collapse): the edges into the node go to the nodes its START leads
// to, the edges out of it leave from the nodes that lead to its END.
//
// Layers: a depth-first walk from __start__ marks the edges that close a
// cycle (back edges); on the rest, a node's layer is one more than its
// deepest predecessor's; __end__ gets a layer of its own at the bottom.
// Within a layer nodes keep the graph's definition order, then one pass
// orders them by their predecessors' mean position, which untangles the
// usual fan-outs. Forward edges run down, back edges up the right; both are
// routed round the node boxes (see route()).

import { svg, displayName, textWidth } from "./util.js";

const START = "__start__";
const END = "__end__";
const NODE_H = 34;
const LAYER_GAP = 88;
const NODE_GAP = 36;
const MARGIN = 24;

// The graph as drawn with the subgraph nodes in `expanded` (a Set of ids)
// opened: {nodes: [{name (the id), label, subgraph, group}], edges, groups}.
export function flatten(graph, expanded, prefix = "") {
  const nodes = [];
  const edges = [];
  const groups = [];
  const entry = new Map(); // id of an opened node -> the ids its edges in go to
  const exit = new Map(); // ... -> the ids its edges out leave from
  for (const n of graph.nodes) {
    const id = prefix + n.name;
    if (n.subgraph && expanded.has(id)) {
      const inner = flatten(n.subgraph, expanded, `${id}:`);
      const start = `${id}:${START}`;
      const end = `${id}:${END}`;
      entry.set(id, inner.edges.filter((e) => e.source === start).map((e) => e.target));
      exit.set(id, inner.edges.filter((e) => e.target === end).map((e) => e.source));
      nodes.push(...inner.nodes.filter((m) => m.name !== start && m.name !== end));
      edges.push(...inner.edges.filter((e) => e.source !== start && e.target !== end));
      groups.push({ id, label: n.name, depth: prefix ? prefix.split(":").length - 1 : 0 }, ...inner.groups);
    } else {
      nodes.push({ name: id, label: n.name, subgraph: Boolean(n.subgraph), group: prefix.slice(0, -1) });
    }
  }
  for (const e of graph.edges) {
    const sources = exit.get(prefix + e.source) || [prefix + e.source];
    const targets = entry.get(prefix + e.target) || [prefix + e.target];
    for (const source of sources) for (const target of targets) edges.push({ ...e, source, target });
  }
  return { name: graph.name, nodes, edges, groups };
}

export function layoutGraph(graph) {
  const names = graph.nodes.map((n) => n.name);
  const index = new Map(names.map((n, i) => [n, i]));
  const edges = graph.edges.filter((e) => index.has(e.source) && index.has(e.target));
  const out = new Map(names.map((n) => [n, []]));
  for (const e of edges) out.get(e.source).push(e);

  // Back edges: those reaching a node still on the depth-first stack.
  const back = new Set();
  const state = new Map();
  const visit = (n) => {
    state.set(n, "open");
    for (const e of out.get(n)) {
      const s = state.get(e.target);
      if (s === "open") back.add(e);
      else if (s === undefined) visit(e.target);
    }
    state.set(n, "done");
  };
  if (index.has(START)) visit(START);
  for (const n of names) if (!state.has(n)) visit(n);

  // Longest path over forward edges (Kahn's order).
  const forward = edges.filter((e) => !back.has(e) && e.source !== e.target);
  const indeg = new Map(names.map((n) => [n, 0]));
  for (const e of forward) indeg.set(e.target, indeg.get(e.target) + 1);
  const layer = new Map(names.map((n) => [n, 0]));
  const queue = names.filter((n) => indeg.get(n) === 0);
  while (queue.length) {
    const n = queue.shift();
    for (const e of out.get(n)) {
      if (back.has(e) || e.source === e.target) continue;
      layer.set(e.target, Math.max(layer.get(e.target), layer.get(n) + 1));
      indeg.set(e.target, indeg.get(e.target) - 1);
      if (indeg.get(e.target) === 0) queue.push(e.target);
    }
  }
  if (index.has(END)) {
    const deepest = Math.max(0, ...names.filter((n) => n !== END).map((n) => layer.get(n)));
    layer.set(END, deepest + 1);
  }

  const layers = [];
  for (const n of names) (layers[layer.get(n)] ||= []).push(n);
  const rows = layers.filter(Boolean);
  const labels = new Map(graph.nodes.map((n) => [n.name, displayName(n.label ?? n.name) + (n.subgraph ? "  ⊕" : "")]));
  const width = new Map(names.map((n) => [n, Math.max(64, textWidth(labels.get(n), 13) + 28)]));

  // Positions: each row centred; rows after the first ordered by the mean
  // x of their forward predecessors.
  const x = new Map();
  const rowWidth = (row) => row.reduce((w, n) => w + width.get(n), 0) + NODE_GAP * (row.length - 1);
  const maxWidth = Math.max(...rows.map(rowWidth));
  const preds = new Map(names.map((n) => [n, []]));
  for (const e of forward) preds.get(e.target).push(e.source);
  rows.forEach((row, r) => {
    if (r > 0) {
      const key = (n) => {
        const ps = preds.get(n).filter((p) => x.has(p));
        return ps.length ? ps.reduce((s, p) => s + x.get(p), 0) / ps.length : index.get(n) * 1e-3;
      };
      row.sort((a, b) => key(a) - key(b) || index.get(a) - index.get(b));
    }
    let left = MARGIN + (maxWidth - rowWidth(row)) / 2;
    for (const n of row) {
      x.set(n, left + width.get(n) / 2);
      left += width.get(n) + NODE_GAP;
    }
  });
  const nodes = new Map();
  rows.forEach((row, r) => {
    for (const n of row) {
      const { subgraph = false, group = "" } = graph.nodes[index.get(n)];
      nodes.set(n, { name: n, label: labels.get(n), subgraph, group, x: x.get(n), y: MARGIN + 18 + r * LAYER_GAP, w: width.get(n), h: NODE_H, layer: r });
    }
  });
  const backCount = [...back].length;
  return {
    nodes,
    rowY: rows.map((_, r) => MARGIN + 18 + r * LAYER_GAP),
    edges: edges.map((e) => ({ ...e, back: back.has(e) || e.source === e.target })),
    width: maxWidth + MARGIN * 2 + (backCount ? 80 : 0),
    height: MARGIN * 2 + 18 + (rows.length - 1) * LAYER_GAP + NODE_H + 8 + 40,
  };
}

// Edges are routed round the node boxes, never through them. The bands
// between layers hold no node, so a curve from one layer to the next is
// clear; an edge that spans several layers passes each layer in between
// through a gap between its nodes (the gap nearest its straight line), and a
// back edge leaves its source downwards into the band below, runs up the
// right of every node it passes, and enters its target from the band above
// (or from the side, when nothing stands right of either end).
const CLEAR = 8; // the least room kept between an edge and a box it passes

function layerBoxes(layout, layer) {
  return [...layout.nodes.values()].filter((n) => n.layer === layer).sort((p, q) => p.x - q.x);
}

// An x at which a vertical line passes `layer` without entering a node box.
function gapX(layout, layer, want) {
  const row = layerBoxes(layout, layer);
  const hit = row.find((n) => want > n.x - n.w / 2 - CLEAR && want < n.x + n.w / 2 + CLEAR);
  if (!hit) return want;
  const i = row.indexOf(hit);
  const left = i > 0 ? (row[i - 1].x + row[i - 1].w / 2 + hit.x - hit.w / 2) / 2 : hit.x - hit.w / 2 - NODE_GAP / 2;
  const right = i < row.length - 1 ? (hit.x + hit.w / 2 + row[i + 1].x - row[i + 1].w / 2) / 2 : hit.x + hit.w / 2 + NODE_GAP / 2;
  return Math.abs(want - left) <= Math.abs(right - want) ? left : right;
}

// A smooth path through points joined by vertical-tangent curves (each stays
// inside the box of its two ends) and straight runs.
function through(points) {
  let d = `M ${points[0][0]} ${points[0][1]}`;
  for (let k = 1; k < points.length; k++) {
    const [x0, y0] = points[k - 1];
    const [x1, y1] = points[k];
    if (x0 === x1 || y0 === y1) d += ` L ${x1} ${y1}`;
    else {
      const mid = (y0 + y1) / 2;
      d += ` C ${x0} ${mid}, ${x1} ${mid}, ${x1} ${y1}`;
    }
  }
  return d;
}

// Rounded corners on an orthogonal route (each corner cut inside the free band it turns in).
function orthogonal(points, r = 8) {
  let d = `M ${points[0][0]} ${points[0][1]}`;
  for (let k = 1; k < points.length - 1; k++) {
    const [xp, yp] = points[k - 1];
    const [x, y] = points[k];
    const [xn, yn] = points[k + 1];
    const a = Math.min(r, Math.hypot(x - xp, y - yp) / 2);
    const b = Math.min(r, Math.hypot(xn - x, yn - y) / 2);
    const ux = Math.sign(x - xp), uy = Math.sign(y - yp), vx = Math.sign(xn - x), vy = Math.sign(yn - y);
    d += ` L ${x - ux * a} ${y - uy * a} Q ${x} ${y}, ${x + vx * b} ${y + vy * b}`;
  }
  const [xl, yl] = points.at(-1);
  return `${d} L ${xl} ${yl}`;
}

function rightmost(layout, node) {
  return !layerBoxes(layout, node.layer).some((n) => n.x > node.x);
}

// The edge's path, and a point to put its label at.
function route(layout, e, i) {
  const a = layout.nodes.get(e.source);
  const b = layout.nodes.get(e.target);
  if (e.source === e.target) {
    const x0 = a.x + a.w / 2;
    return { d: `M ${x0} ${a.y - 6} C ${x0 + 30} ${a.y - 20}, ${x0 + 30} ${a.y + 20}, ${x0} ${a.y + 6}`, at: [x0 + 26, a.y] };
  }
  if (e.back) {
    const lo = Math.min(a.layer, b.layer);
    const hi = Math.max(a.layer, b.layer);
    const passed = [...layout.nodes.values()].filter((n) => n.layer >= lo && n.layer <= hi);
    const lane = Math.max(...passed.map((n) => n.x + n.w / 2)) + 22 + 12 * (i % 3);
    const points = [];
    if (rightmost(layout, a)) points.push([a.x + a.w / 2, a.y]);
    else points.push([a.x, a.y + a.h / 2], [a.x, a.y + a.h / 2 + 14 + 4 * (i % 3)]);
    points.push([lane, points.at(-1)[1]]);
    if (rightmost(layout, b)) points.push([lane, b.y], [b.x + b.w / 2 + 4, b.y]);
    else {
      const above = b.y - b.h / 2 - 16 - 4 * (i % 3);
      points.push([lane, above], [b.x + 10, above], [b.x + 10, b.y - b.h / 2 - 4]);
    }
    return { d: orthogonal(points), at: [lane + 4, (points[1][1] + points.at(-2)[1]) / 2] };
  }
  // Forward: down through each layer in between at a gap, then into the target's top.
  const points = [[a.x, a.y + a.h / 2]];
  const span = b.layer - a.layer;
  for (let l = a.layer + 1; l < b.layer; l++) {
    const want = a.x + ((b.x - a.x) * (l - a.layer)) / span;
    const top = layout.rowY[l] - NODE_H / 2 - CLEAR;
    const x = gapX(layout, l, want);
    points.push([x, top], [x, top + NODE_H + 2 * CLEAR]);
  }
  points.push([b.x, b.y - b.h / 2 - 4]);
  const m = Math.floor((points.length - 1) / 2);
  return { d: through(points), at: [(points[m][0] + points[m + 1][0]) / 2 + 6, (points[m][1] + points[m + 1][1]) / 2] };
}

// The frame round an opened subgraph's nodes (nested ones inside it).
function groupFrame(layout, group, live, onToggle) {
  const inside = [...layout.nodes.values()].filter((n) => n.group === group.id || n.group.startsWith(`${group.id}:`));
  if (!inside.length) return null;
  const pad = 14 - 4 * Math.min(group.depth, 2);
  const x0 = Math.min(...inside.map((n) => n.x - n.w / 2)) - pad;
  const x1 = Math.max(...inside.map((n) => n.x + n.w / 2)) + pad;
  const y0 = Math.min(...inside.map((n) => n.y - n.h / 2)) - pad - 16;
  const y1 = Math.max(...inside.map((n) => n.y + n.h / 2)) + pad;
  const runs = live.get(group.id) || [];
  const g = svg("g", { class: `group${runs.length ? " lit" : ""}`, "data-group": group.id });
  const rect = svg("rect", { x: x0, y: y0, width: x1 - x0, height: y1 - y0, rx: 10 });
  if (runs.length) rect.style.stroke = runs[0].color;
  g.append(rect);
  const title = svg("text", { x: x0 + 10, y: y0 + 14, class: "group-title", tabindex: 0, role: "button" });
  title.textContent = `${group.label}  ⊖`;
  title.addEventListener("click", () => onToggle(group.id));
  title.addEventListener("keydown", (e) => e.key === "Enter" && onToggle(group.id));
  g.append(title);
  return g;
}

// Draws ``graph`` into ``host``. ``live`` maps a node name to the runs at it
// ([{thread_id, color}]): such a node lights up in the first run's colour,
// and every run at it gets a chip naming its thread. ``expanded``: the ids of
// the subgraph nodes drawn open; ``onToggle(id)`` is called when one is clicked.
export function renderGraph(host, drawing, live, expanded = new Set(), onToggle = () => {}) {
  const graph = flatten(drawing, expanded);
  const layout = layoutGraph(graph);
  const root = svg("svg", {
    class: "graph",
    width: layout.width,
    height: layout.height + 8,
    viewBox: `0 0 ${layout.width} ${layout.height + 8}`,
    role: "img",
    "aria-label": `graph ${graph.name}`,
  });
  const defs = svg("defs");
  const marker = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" });
  marker.append(svg("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrowhead" }));
  defs.append(marker);
  root.append(defs);

  const groupLayer = svg("g", { class: "groups" });
  for (const group of graph.groups) {
    const frame = groupFrame(layout, group, live, onToggle);
    if (frame) groupLayer.append(frame);
  }
  root.append(groupLayer);

  const edgeLayer = svg("g", { class: "edges" });
  layout.edges.forEach((e, i) => {
    const g = svg("g", {
      class: `edge${e.conditional ? " conditional" : ""}${e.back ? " back" : ""}`,
      "data-source": e.source,
      "data-target": e.target,
    });
    const { d, at } = route(layout, e, i);
    g.append(svg("path", { d, "marker-end": "url(#arrow)" }));
    if (e.label) {
      const t = svg("text", { x: at[0], y: at[1], class: "edge-label" });
      t.textContent = e.label;
      g.append(t);
    }
    edgeLayer.append(g);
  });
  root.append(edgeLayer);

  const nodeLayer = svg("g", { class: "nodes" });
  for (const n of layout.nodes.values()) {
    const runs = live.get(n.name) || [];
    const special = n.name === START || n.name === END;
    const g = svg("g", {
      class: `node${special ? " terminal" : ""}${runs.length ? " lit" : ""}${n.subgraph ? " subgraph" : ""}`,
      "data-node": n.name,
      "data-threads": runs.map((r) => r.thread_id).join(" "),
      transform: `translate(${n.x - n.w / 2}, ${n.y - n.h / 2})`,
    });
    if (n.subgraph) {
      g.setAttribute("tabindex", 0);
      g.setAttribute("role", "button");
      g.setAttribute("aria-label", `subgraph ${n.label}: expand`);
      g.addEventListener("click", () => onToggle(n.name));
      g.addEventListener("keydown", (e) => e.key === "Enter" && onToggle(n.name));
    }
    const rect = svg("rect", { width: n.w, height: n.h, rx: special ? n.h / 2 : 7 });
    if (runs.length) {
      rect.style.stroke = runs[0].color;
      rect.style.fill = runs[0].tint;
    }
    g.append(rect);
    const label = svg("text", { x: n.w / 2, y: n.h / 2 + 4.5, "text-anchor": "middle" });
    label.textContent = n.label;
    g.append(label);
    // One chip per run at this node, in its thread's colour, under the node
    // (two at most; more are counted on a third chip).
    const shown = runs.length > 2 ? [...runs.slice(0, 1), { thread_id: `+${runs.length - 1} more`, color: "#59637a", more: true }] : runs;
    shown.forEach((r, i) => {
      const w = textWidth(r.thread_id, 11) + 16;
      const chip = svg("g", {
        class: "chip",
        ...(r.more ? {} : { "data-thread": r.thread_id }),
        transform: `translate(${(n.w - w) / 2}, ${n.h + 4 + i * 19})`,
      });
      const cr = svg("rect", { width: w, height: 16, rx: 8 });
      cr.style.fill = r.color;
      chip.append(cr);
      const ct = svg("text", { x: w / 2, y: 11.5, "text-anchor": "middle" });
      ct.textContent = r.thread_id;
      chip.append(ct);
      g.append(chip);
    });
    nodeLayer.append(g);
  }
  root.append(nodeLayer);
  host.replaceChildren(root);
  // Chips sit left of their node: widen the view if one pokes out.
  const box = root.getBBox();
  if (box.x < 0 || box.x + box.width > layout.width) {
    const x0 = Math.min(0, box.x - 8);
    const w = Math.max(layout.width, box.x + box.width + 8) - x0;
    root.setAttribute("viewBox", `${x0} 0 ${w} ${layout.height + 8}`);
    root.setAttribute("width", w);
  }
}
