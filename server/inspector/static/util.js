// Small DOM and text helpers shared by the inspector's modules.

const SVG_NS = "http://www.w3.org/2000/svg";

export function svg(tag, attrs = {}) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "style") node.style.cssText = v; // CSSOM, which the page's CSP allows (style attributes it does not)
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, String(v));
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

export function displayName(node) {
  if (node === "__start__") return "START";
  if (node === "__end__") return "END";
  return node;
}

// The label under a version: the nodes due next, or END when none is.
export function nextLabel(next) {
  return next && next.length ? next.map(displayName).join(", ") : "END";
}

let canvas = null;
export function textWidth(text, size) {
  canvas ||= document.createElement("canvas");
  const ctx = canvas.getContext("2d");
  ctx.font = `${size}px system-ui, -apple-system, "Segoe UI", sans-serif`;
  return Math.ceil(ctx.measureText(text).width);
}

// A thread's colour. The threads on show get distinct colours: twelve
// well-separated hues for the first twelve threads this page meets (in the
// order it lists them), then hues stepped by the golden angle at other
// lightnesses. A thread keeps its colour for the page's life.
const HUES = [212, 4, 140, 32, 275, 180, 330, 95, 245, 55, 160, 300];
const assigned = new Map();
export function threadColor(threadId) {
  let i = assigned.get(threadId);
  if (i === undefined) {
    i = assigned.size;
    assigned.set(threadId, i);
  }
  if (i < HUES.length) return { color: `hsl(${HUES[i]} 68% 42%)`, tint: `hsl(${HUES[i]} 80% 93%)` };
  const hue = Math.round((HUES[i % HUES.length] + (i * 137.508)) % 360);
  const light = [34, 50, 42][Math.floor(i / HUES.length) % 3];
  return { color: `hsl(${hue} 62% ${light}%)`, tint: `hsl(${hue} 75% 93%)` };
}

// Gives the threads of a list their colours in its order (the first listed, the first hues).
export function colourThreads(ids) {
  for (const id of ids) threadColor(id);
}

// The shortest prefix (8+ characters) that tells an id apart from the others:
// checkpoint ids are time-ordered, so ids saved close together share a long prefix.
export function shortIds(ids) {
  const sorted = [...ids].sort();
  const out = new Map();
  sorted.forEach((id, i) => {
    let n = 8;
    for (const other of [sorted[i - 1], sorted[i + 1]]) {
      if (!other) continue;
      let k = 0;
      while (k < id.length && id[k] === other[k]) k++;
      n = Math.max(n, k + 1);
    }
    out.set(id, id.slice(0, n));
  });
  return out;
}

export function json(value) {
  return JSON.stringify(value, null, 2);
}

export function ago(iso) {
  if (!iso) return "";
  const s = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
  if (s < 60) return `${Math.round(s)}s ago`;
  if (s < 3600) return `${Math.round(s / 60)}m ago`;
  if (s < 86400) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86400)}d ago`;
}
