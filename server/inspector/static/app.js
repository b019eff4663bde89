// The inspector page: which graph and thread are shown, what is running, and
// the wiring between the API, the drawings and the version panel.
//
// Where the page is lives in the URL's hash (#graph=…&thread=…&version=…), so
// a link opens the same view. Live runs come from /api/events: every run
// message carries the nodes the run is at, which is all the page keeps.

import { AuthError, getJson, setToken, streamEvents, takeTokenFromUrl } from "./api.js";
import { renderGraph } from "./graph.js";
import { ago, el, json, nextLabel, shortIds, threadColor } from "./util.js";
import { renderVersions } from "./versions.js";
import { CallsPanel } from "./calls.js";

const $ = (id) => document.getElementById(id);
let calls = null; // the CallsPanel, made at the end of this module (it calls back into it)

const state = {
  graphs: [],
  graph: null, // name
  drawing: null,
  threads: [], // [{thread_id, checkpoint_id, updated_at, running, waiting: {interrupt_id, node, value} | null, status, metadata}]
  search: { metadata: "", status: "" }, // the thread list's search (metadata JSON contained in theirs, a status)
  listable: true,
  thread: null,
  versions: [], // refs, oldest first
  selected: null, // opened version id
  truncated: false, // the history was cut at the server's max_history
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

function drawThreads() {
  const list = $("threads");
  const known = new Set(state.threads.map((t) => t.thread_id));
  // Threads running now but not listed yet (their first version is not saved, or listing is off).
  const extra = runsOf(state.graph)
    .filter((r) => !known.has(r.thread_id))
    .map((r) => ({ thread_id: r.thread_id, updated_at: null }));
  const items = [...extra, ...state.threads].map((t) => {
    const { color } = threadColor(t.thread_id);
    const at = runningNodes(t.thread_id);
    const li = el(
      "li",
      {
        class: `${t.thread_id === state.thread ? "selected" : ""}${at ? " running" : t.waiting ? " waiting" : ""}`,
        "data-thread": t.thread_id,
        tabindex: 0,
        onclick: () => selectThread(t.thread_id),
        onkeydown: (e) => e.key === "Enter" && selectThread(t.thread_id),
      },
      el("span", { class: "swatch", style: `background:${color}` }),
      el("span", { class: "thread-id" }, t.thread_id),
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
    return li;
  });
  list.replaceChildren(...items);
  $("threads-note").textContent = !state.listable
    ? "This checkpointer cannot list threads: open one by its id above."
    : items.length
      ? ""
      : state.search.metadata || state.search.status
        ? "No thread matches."
        : "No threads yet.";
}

function drawVersions() {
  const host = $("versions");
  if (!state.thread) {
    $("thread-title").textContent = "Versions";
    host.replaceChildren(el("p", { class: "note" }, "Pick a thread."));
    return;
  }
  const { color } = threadColor(state.thread);
  $("thread-title").replaceChildren(
    "Versions of ",
    el("span", { class: "swatch", style: `background:${color}` }),
    el("code", {}, state.thread),
  );
  if (!state.versions.length) {
    host.replaceChildren(el("p", { class: "note" }, runningNodes(state.thread) ? "Running: no version saved yet." : "No versions."));
    return;
  }
  const atEnd = host.scrollLeft + host.clientWidth >= host.scrollWidth - 4;
  renderVersions(host, state.versions, {
    color,
    selected: state.selected,
    running: runningNodes(state.thread),
    short: shortIds(state.versions.map((v) => v.checkpoint_id)),
    onSelect: openVersion,
  });
  if (state.truncated) host.prepend(el("p", { class: "note" }, `Only the newest ${state.versions.length} versions are shown (the server's max_history).`));
  if (atEnd) host.scrollLeft = host.scrollWidth;
}

function section(name, title, ...body) {
  return el("section", { "data-section": name }, el("h3", {}, title), ...body);
}

const SOURCES = {
  input: "The caller's input, applied to its parent (or to an empty state).",
  fork: "A copy of its parent: a run restarted from that version. Nothing was written.",
  update: "Written by update_state (as if a node had returned the values).",
};

function drawDetail(v) {
  const short = shortIds(state.versions.map((x) => x.checkpoint_id));
  const parts = [
    el(
      "h2",
      {},
      "Version ",
      el("code", {}, short.get(v.checkpoint_id) || v.checkpoint_id.slice(0, 8)),
      el("span", { class: `source source-${v.source}` }, v.source),
      el("span", { class: "stepno" }, `step ${v.step}`),
    ),
    el(
      "dl",
      {},
      el("dt", {}, "id"),
      el("dd", {}, el("code", {}, v.checkpoint_id)),
      el("dt", {}, "parent"),
      el(
        "dd",
        {},
        v.parent_id ? el("a", { href: "#", onclick: (e) => (e.preventDefault(), openVersion(v.parent_id)) }, el("code", {}, v.parent_id)) : "none (the first version)",
      ),
      el("dt", {}, "saved"),
      el("dd", {}, v.created_at || ""),
      el("dt", {}, "next"),
      el("dd", { "data-field": "next" }, nextLabel(v.next)),
    ),
  ];
  if (v.interrupts.length) {
    // Pending until a run goes on from this version; after that it was answered.
    const answered = state.versions.some((x) => x.parent_id === v.checkpoint_id);
    parts.push(
      section(
        "interrupts",
        answered ? "Interrupt · answered" : "Pending interrupt",
        ...v.interrupts.map((i) => el("div", { class: "interrupt" }, el("p", {}, "at ", el("b", {}, i.node), " · id ", el("code", {}, i.interrupt_id)), el("pre", {}, json(i.value)))),
        answered ? el("p", { class: "note" }, "A run went on from this version: this question has its answer.") : null,
      ),
    );
  }
  const subgraphTasks = v.tasks.filter((t) => t.checkpoint_ns);
  if (subgraphTasks.length) {
    parts.push(
      section(
        "subgraphs",
        "Subgraph tasks",
        ...subgraphTasks.map((t) => subgraphTask(t)),
        el("p", { class: "note" }, "A subgraph runs as one task of this graph; its own versions are stored in the thread under the task's namespace."),
      ),
    );
  }
  parts.push(section("values", "Values", el("pre", {}, json(v.values))));
  const w = v.writes;
  const how =
    v.source === "loop"
      ? el("p", {}, "Ran: ", ...(w.ran.length ? w.ran.map((n, i) => [i ? ", " : "", el("b", {}, n)]).flat() : ["(nothing)"]), ".")
      : el("p", {}, SOURCES[v.source] || "");
  const changes = w.changes.length
    ? w.changes.map((c) => el("div", { class: "change" }, el("p", {}, el("code", {}, c.key), " ", el("span", { class: `kind kind-${c.kind}` }, c.kind)), c.kind === "removed" ? null : el("pre", {}, json(c.value))))
    : [el("p", { class: "note" }, "No value changed.")];
  const results = (w.results || []).length
    ? [
        el("h4", {}, "Task results"),
        ...w.results.map((r) => el("div", { class: "change", "data-field": "result" }, el("p", {}, el("b", {}, r.node)), el("pre", {}, json(r.result)))),
      ]
    : [];
  const pending = w.pending_writes.length
    ? [
        el("h4", {}, "Pending writes stored on the parent"),
        ...w.pending_writes.map((p) => el("div", { class: "change" }, el("p", {}, el("b", {}, p.node || p.task_id.slice(0, 8)), " → ", el("code", {}, p.channel)), el("pre", {}, json(p.value)))),
      ]
    : [];
  parts.push(
    section(
      "writes",
      "Writes that produced it",
      how,
      ...changes,
      ...results,
      ...pending,
      el(
        "p",
        { class: "note" },
        "Changes compare this version's values with its parent's (a list that grew shows the appended items). " +
          "Task results are what each task of the parent's step wrote to the state. " +
          "Pending writes are what the checkpointer keeps on the parent: every finished task's writes, and interrupt/resume records.",
      ),
    ),
  );
  parts.push(section("metadata", "Metadata", el("pre", {}, json(v.metadata))));
  $("detail").replaceChildren(...parts);
  $("detail").dataset.version = v.checkpoint_id;
}

// A subgraph's task in a version's detail: opened, it lists the subgraph's
// versions under the task's namespace (oldest first), each with its values.
function subgraphTask(t) {
  const list = el("ol", { class: "subversions" });
  const box = el(
    "details",
    { class: "subgraph-task", "data-ns": t.checkpoint_ns },
    el("summary", {}, el("b", {}, t.node), " · ", el("code", {}, t.checkpoint_ns)),
    list,
  );
  let loaded = false;
  box.addEventListener("toggle", () => {
    if (!box.open || loaded) return;
    loaded = true;
    list.replaceChildren(el("li", { class: "note" }, "Loading…"));
    getJson("/api/history", { graph: state.graph, thread: state.thread, checkpoint_ns: t.checkpoint_ns })
      .then((res) => {
        list.replaceChildren(
          ...(res.versions.length
            ? res.versions.map((sv) => subVersion(t.checkpoint_ns, sv))
            : [el("li", { class: "note" }, "No versions: the subgraph has not saved one from this task.")]),
        );
        box.dataset.loaded = "true";
      })
      .catch((err) => {
        loaded = false;
        if (err instanceof AuthError) return askToken();
        list.replaceChildren(el("li", { class: "error" }, `Cannot read its versions: ${err.message}`));
      });
  });
  return box;
}

function subVersion(ns, sv) {
  const values = el("pre", { hidden: true });
  const item = el(
    "li",
    { "data-version": sv.checkpoint_id },
    el("span", { class: `source source-${sv.source}` }, sv.source),
    el("span", { class: "stepno" }, `step ${sv.step}`),
    " next ",
    el("span", { "data-field": "next" }, nextLabel(sv.next)),
    sv.interrupts.length ? el("span", { class: "waiting" }, ` ? ${sv.interrupts.map((i) => i.node).join(", ")}`) : null,
    values,
  );
  item.addEventListener("click", () => {
    if (!values.hidden) return void (values.hidden = true);
    getJson("/api/version", { graph: state.graph, thread: state.thread, checkpoint: sv.checkpoint_id, checkpoint_ns: ns })
      .then((detail) => {
        values.textContent = json(detail.values);
        values.hidden = false;
      })
      .catch(fail);
  });
  return item;
}

function drawAll() {
  drawGraph();
  drawThreads();
  drawVersions();
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
  state.versions = [];
  state.selected = null;
  state.expanded = new Set();
  $("graph-select").value = name;
  const [drawing] = await Promise.all([getJson("/api/graph", { name }), loadThreads()]);
  state.drawing = drawing;
  $("graph-description").textContent = drawing.description || "";
  resetDetail();
  drawAll();
  saveHash();
  if (thread) await selectThread(thread, version);
}

function resetDetail() {
  $("detail").replaceChildren(el("p", { class: "note" }, "Click a version to see its values, metadata, the writes that produced it and any pending interrupt."));
  delete $("detail").dataset.version;
}

async function refreshHistory() {
  const thread = state.thread;
  try {
    const res = await getJson("/api/history", { graph: state.graph, thread });
    if (thread !== state.thread) return;
    state.versions = res.versions;
    state.truncated = res.truncated;
  } catch (err) {
    if (err.status === 404 && thread === state.thread) state.versions = [];
    else throw err;
  }
  drawVersions();
}

async function selectThread(thread, version = null) {
  state.thread = thread;
  state.versions = [];
  state.selected = null;
  resetDetail();
  drawThreads();
  calls.show(state.graph, thread);
  await refreshHistory();
  saveHash();
  if (version) await openVersion(version);
}

async function openVersion(id) {
  state.selected = id;
  drawVersions();
  saveHash();
  try {
    const v = await getJson("/api/version", { graph: state.graph, thread: state.thread, checkpoint: id });
    if (state.selected === id) drawDetail(v);
  } catch (err) {
    if (err instanceof AuthError) return askToken();
    $("detail").replaceChildren(el("p", { class: "error" }, `Cannot read version ${id}: ${err.message}`));
  }
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
    drawAll();
    if (msg.type === "resync" && state.thread) refreshHistory().catch(fail);
    return;
  }
  const run = { graph: msg.graph, thread_id: msg.thread_id, run_id: msg.run_id, nodes: msg.nodes };
  if (msg.type === "run_finished") state.live.delete(msg.run_id);
  else state.live.set(msg.run_id, run);
  if (msg.graph !== state.graph) return;
  if (msg.type === "checkpoint_saved" && msg.thread_id === state.thread) {
    const ref = msg.checkpoint;
    if (!state.versions.some((v) => v.checkpoint_id === ref.checkpoint_id)) state.versions.push({ ...ref, interrupts: [] });
  }
  drawGraph();
  drawThreads();
  if (msg.thread_id === state.thread) drawVersions();
  if (msg.thread_id === state.thread && (msg.type === "run_started" || msg.type === "run_finished")) calls.refresh();
  if (msg.type === "run_finished") {
    reloadThreadsSoon();
    if (msg.thread_id === state.thread) {
      refreshHistory()
        .then(() => {
          if (state.selected && state.selected === (state.versions.at(-1) || {}).checkpoint_id) openVersion(state.selected);
        })
        .catch(fail);
    }
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
    if (state.thread) refreshHistory().catch(fail);
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

calls = new CallsPanel($("calls"), { getJson, onSelect: (id) => openVersion(id).catch(fail), onError: fail });
takeTokenFromUrl();
start();
