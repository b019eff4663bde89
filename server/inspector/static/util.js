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

// A thread's colour: one of twelve well-separated hues, picked from its id,
// so it is the same on every page load (two threads may share one: 1 in 12).
const HUES = [212, 4, 140, 32, 275, 180, 330, 95, 245, 18, 160, 300];
export function threadColor(threadId) {
  let h = 2166136261;
  for (let i = 0; i < threadId.length; i++) {
    h ^= threadId.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  const hue = HUES[(h >>> 0) % HUES.length];
  return { color: `hsl(${hue} 68% 42%)`, tint: `hsl(${hue} 80% 93%)` };
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
