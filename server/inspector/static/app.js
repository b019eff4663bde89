// The inspector page: which graph and thread are shown, what is running, and
// the wiring between the API, the drawings and the version panel.
//
// Where the page is lives in the URL's hash (#graph=…&thread=…&version=…), so
// a link opens the same view. Live runs come from /api/events: every run
// message carries the nodes the run is at, which is all the page keeps of a
// run, but for the state it holds (held.js).

import { AuthError, getJson, setToken, streamEvents, takeTokenFromUrl } from "./api.js";
import { renderGraph } from "./graph.js";
import { colourThreads, el, shortIds, threadColor } from "./util.js";
import { CallsPanel } from "./calls.js";
import { drawDetail } from "./detail.js";
import { HeldPanel } from "./held.js";
import { Lanes } from "./lanes.js";
import { ThreadRows, threadLabel } from "./rows.js";

const $ = (id) => document.getElementById(id);
let calls = null; // the CallsPanel, made at the end of this module (it calls back into it)
let rows = null; // the ThreadRows, likewise
let held = null;
let lanes = null;

const state = {
  graphs: [],
  graph: null, // name
  drawing: null,
  threads: [], // [{thread_id, label, checkpoint_id, updated_at, running, waiting: {interrupt_id, node, value} | null, status, metadata}]
  search: { metadata: "", status: "" }, // the thread list's search (metadata JSON contained in theirs, a status)
  listable: true,
  thread: null,
  selected: null, // opened version id
  live: new Map(), // run_id -> {graph, thread_id, run_id, nodes}
  stopEvents: null,
  expanded: new Set(), // ids of the subgraph nodes drawn open
};

// -- live runs -----------------------------------------------------------------

function runsOf(graph, thread) {
  return [...state.live.values()].filter((r) => r.graph === graph && (thread === undefined || r.thread_id === thread));
}

function liveByNode() {
  const out = new Map();
  const runs = runsOf(state.graph).sort((a, b) => a.thread_id.localeCompare(b.thread_id));
  for (const r of runs) {
    for (const node of r.nodes) {
      if (!out.has(node)) out.set(node, []);
      out.get(node).push({ thread_id: r.thread_id, ...threadColor(r.thread_id) });
    }
  }
  return out;
}

function runningNodes(thread) {
  const runs = runsOf(state.graph, thread);
  if (!runs.length) return null;
  return [...new Set(runs.flatMap((r) => r.nodes))];
}

function labelOf(thread) {
  return threadLabel(state.threads.find((t) => t.thread_id === thread) || { thread_id: thread });
}

// -- rendering -------------------------------------------------------------------

function toggleSubgraph(id) {
  if (state.expanded.has(id)) {
    for (const x of [...state.expanded]) if (x === id || x.startsWith(`${id}:`)) state.expanded.delete(x);
  } else state.expanded.add(id);
  drawGraph();
}

function drawGraph() {
  if (state.drawing) renderGraph($("graph"), state.drawing, liveByNode(), state.expanded, toggleSubgraph);
}

// The threads on show: those listed, and before them any running now but not
// listed yet (no version saved yet, or listing is off) or opened by id.
function shownThreads() {
  const known = new Set(state.threads.map((t) => t.thread_id));
  const extra = [];
  for (const id of [...runsOf(state.graph).map((r) => r.thread_id), state.thread]) {
    if (id && !known.has(id)) {
      known.add(id);
      extra.push({ thread_id: id, updated_at: null });
    }
  }
  return [...extra, ...state.threads];
}

function drawThreads() {
  const shown = shownThreads();
  colourThreads(shown.map((t) => t.thread_id));
  rows.show(shown);
  $("threads-note").textContent = !state.listable
    ? "This checkpointer cannot list threads: open one by its id above."
    : shown.length
      ? ""
      : state.search.metadata || state.search.status
        ? "No thread matches."
        : "No threads yet.";
}

function drawTitle() {
  if (!state.thread) {
    $("calls-title").replaceChildren("Calls ", el("span", { class: "legend" }, "pick a thread"));
    return;
  }
  const { color } = threadColor(state.thread);
  $("calls-title").replaceChildren(
    "Calls of ",
    el("span", { class: "swatch", style: `background:${color}` }),
    el("code", {}, labelOf(state.thread)),
  );
}

function drawAll() {
  drawGraph();
  drawThreads();
}

// -- navigation ----------------------------------------------------------------

function saveHash() {
  const p = new URLSearchParams();
  if (state.graph) p.set("graph", state.graph);
  if (state.thread) p.set("thread", state.thread);
  if (state.selected) p.set("version", state.selected);
  history.replaceState(null, "", `${location.pathname}${location.search}#${p}`);
}

async function loadThreads() {
  try {
    const params = { graph: state.graph };
    if (state.search.metadata) params.metadata = state.search.metadata;
    if (state.search.status) params.status = state.search.status;
    const res = await getJson("/api/threads", params);
    state.threads = res.threads;
    state.listable = true;
  } catch (err) {
    if (err instanceof AuthError) throw err;
    if (err.status === 501) state.listable = false;
    else throw err;
    state.threads = [];
  }
}

async function selectGraph(name, thread = null, version = null) {
  state.graph = name;
  state.thread = null;
  calls.show(name, null);
  state.selected = null;
  state.expanded = new Set();
  rows.reset();
  lanes.reset();
  $("graph-select").value = name;
  const [drawing] = await Promise.all([getJson("/api/graph", { name }), loadThreads()]);
  state.drawing = drawing;
  $("graph-description").textContent = drawing.description || "";
  resetDetail();
  drawAll();
  drawTitle();
  held.sync(runsOf(name));
  saveHash();
  if (thread) await selectThread(thread, version);
}

function resetDetail() {
  $("detail").replaceChildren(el("p", { class: "note" }, "Click a version to see its values, metadata, the writes that produced it and any pending interrupt."));
  delete $("detail").dataset.version;
}

async function selectThread(thread, version = null) {
  state.thread = thread;
  state.selected = null;
  resetDetail();
  drawThreads();
  drawTitle();
  calls.show(state.graph, thread);
  await rows.ensure(thread);
  rows.redraw(thread);
  if (thread === state.thread) calls.draw(); // its calls name versions as the row does, now known
  saveHash();
  if (version) await openVersion(version);
}

async function openVersion(id, thread = state.thread) {
  if (thread !== state.thread) return selectThread(thread, id);
  state.selected = id;
  rows.redrawAll();
  saveHash();
  try {
    const v = await getJson("/api/version", { graph: state.graph, thread, checkpoint: id });
    if (state.selected === id && state.thread === thread) {
      drawDetail($("detail"), v, { graph: state.graph, thread, versions: rows.versionsOf(thread), openVersion, getJson, onError: fail });
    }
  } catch (err) {
    if (err instanceof AuthError) return askToken();
    $("detail").replaceChildren(el("p", { class: "error" }, `Cannot read version ${id}: ${err.message}`));
  }
}

// How a call names the version it went back to: "step 2 · agent" (the step and
// the node due next, as the row shows it) and the row's short id.
function versionName(id, thread = state.thread) {
  const versions = rows.versionsOf(thread);
  const v = versions.find((x) => x.checkpoint_id === id);
  if (!v) return null;
  const next = v.next && v.next.length ? v.next.join(", ") : "END";
  return { text: `step ${v.step} · ${next}`, short: shortIds(versions.map((x) => x.checkpoint_id)).get(id) };
}

// -- live events ----------------------------------------------------------------

let threadsReload = null;
function reloadThreadsSoon() {
  clearTimeout(threadsReload);
  threadsReload = setTimeout(() => {
    loadThreads()
      .then(drawThreads)
      .catch(fail);
  }, 150);
}

function onEvent(msg) {
  if (msg.type === "live" || msg.type === "resync") {
    state.live = new Map(msg.runs.map((r) => [r.run_id, r]));
    held.sync(runsOf(state.graph));
    drawAll();
    if (msg.type === "resync" && state.thread) rows.reread(state.thread).catch(fail);
    return;
  }
  const run = { graph: msg.graph, thread_id: msg.thread_id, run_id: msg.run_id, nodes: msg.nodes };
  if (msg.type === "run_finished") state.live.delete(msg.run_id);
  else state.live.set(msg.run_id, run);
  if (msg.graph !== state.graph) return;
  held.take(msg);
  if (msg.type === "values" || msg.type === "inner") return; // the run's nodes did not move
  if (msg.type === "checkpoint_saved") rows.saved(msg.thread_id, msg.checkpoint);
  drawGraph();
  if (msg.type === "run_started" && !rows.blocks.has(msg.thread_id)) drawThreads(); // a thread not shown yet
  rows.redraw(msg.thread_id);
  if (msg.type === "run_started" || msg.type === "run_finished") lanes.refresh(msg.thread_id);
  if (msg.thread_id === state.thread && (msg.type === "run_started" || msg.type === "run_finished")) calls.refresh();
  if (msg.type === "run_finished") {
    reloadThreadsSoon();
    rows
      .reread(msg.thread_id)
      .then(() => {
        const last = rows.versionsOf(state.thread).at(-1);
        if (msg.thread_id === state.thread && state.selected && state.selected === (last || {}).checkpoint_id) openVersion(state.selected);
      })
      .catch(fail);
  } else if (msg.type === "run_started" && !state.threads.some((t) => t.thread_id === msg.thread_id)) {
    reloadThreadsSoon();
  }
}

function onEventsStatus(status) {
  const s = $("events-status");
  s.dataset.state = status;
  s.textContent = { open: "● live", closed: "reconnecting…", unauthorized: "no token" }[status] || status;
  if (status === "unauthorized") askToken();
  if (status === "open" && state.graph) {
    // Caught up by the "live" message; versions saved while away come from a re-read.
    if (state.thread) rows.reread(state.thread).catch(fail);
  }
}

// -- start ----------------------------------------------------------------------

function askToken() {
  const dialog = $("token-dialog");
  dialog.hidden = false;
  dialog.querySelector("input").focus();
}

$("token-dialog")
  .querySelector("form")
  .addEventListener("submit", (e) => {
    e.preventDefault();
    setToken(e.target.elements.token.value.trim());
    $("token-dialog").hidden = true;
    start();
  });

$("graph-select").addEventListener("change", (e) => selectGraph(e.target.value).catch(fail));
function searchThreads(form) {
  state.search = { metadata: form.elements.metadata.value.trim(), status: form.elements.status.value };
  loadThreads()
    .then(drawThreads)
    .catch((err) => {
      if (err.status === 400) $("threads-note").textContent = err.message;
      else fail(err);
    });
}
$("search-threads").addEventListener("submit", (e) => {
  e.preventDefault();
  searchThreads(e.target);
});
$("search-threads").elements.status.addEventListener("change", (e) => searchThreads(e.target.form));
$("open-thread").addEventListener("submit", (e) => {
  e.preventDefault();
  const id = e.target.elements.thread.value.trim();
  if (id) selectThread(id).catch(fail);
});

function fail(err) {
  if (err instanceof AuthError) return askToken();
  console.error(err);
  document.body.dataset.error = err.message;
  $("events-status").textContent = `error: ${err.message}`;
}

async function start() {
  try {
    const { graphs } = await getJson("/api/graphs");
    state.graphs = graphs;
    $("graph-select").replaceChildren(...graphs.map((g) => el("option", { value: g.name }, g.name)));
    const want = new URLSearchParams(location.hash.slice(1));
    const graph = graphs.some((g) => g.name === want.get("graph")) ? want.get("graph") : graphs[0] && graphs[0].name;
    if (state.stopEvents) state.stopEvents();
    state.stopEvents = streamEvents(onEvent, onEventsStatus);
    if (graph) await selectGraph(graph, want.get("thread"), want.get("version"));
    document.body.dataset.ready = "true";
  } catch (err) {
    fail(err);
  }
}

calls = new CallsPanel($("calls"), { getJson, onSelect: (id) => openVersion(id).catch(fail), onError: fail, versionName });
held = new HeldPanel($("held"), { label: labelOf });
lanes = new Lanes({
  getJson,
  graph: () => state.graph,
  inView: () => rows.inView(),
  laneOf: (t) => rows.laneOf(t),
  versionName: (t, id) => versionName(id, t),
  onError: fail,
});
rows = new ThreadRows($("threads"), $("threads-scroll"), {
  getJson,
  graph: () => state.graph,
  selected: () => state.thread,
  selectedVersion: () => state.selected,
  runningNodes,
  onSelectThread: (t) => (t === state.thread ? null : selectThread(t).catch(fail)),
  onSelectVersion: (t, id) => openVersion(id, t).catch(fail),
  onError: fail,
});
takeTokenFromUrl();
start();
