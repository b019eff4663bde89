// A version opened beside the rows: its values (messages as a transcript),
// metadata, the writes that produced it, its interrupt, and its subgraph
// tasks, each opening on the subgraph's own versions.
//
// ctx: {graph, thread, versions (the thread's refs), openVersion(id), getJson, onError}.

import { AuthError } from "./api.js";
import { valueView, valuesView } from "./messages.js";
import { el, json, nextLabel, shortIds } from "./util.js";

function section(name, title, ...body) {
  return el("section", { "data-section": name }, el("h3", {}, title), ...body);
}

const SOURCES = {
  input: "The caller's input, applied to its parent (or to an empty state).",
  fork: "A copy of its parent: a run restarted from that version. Nothing was written.",
  update: "Written by update_state (as if a node had returned the values).",
};

export function drawDetail(host, v, ctx) {
  const { openVersion } = ctx;
  const short = shortIds(ctx.versions.map((x) => x.checkpoint_id));
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
    const answered = ctx.versions.some((x) => x.parent_id === v.checkpoint_id);
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
        ...subgraphTasks.map((t) => subgraphTask(t, ctx)),
        el("p", { class: "note" }, "A subgraph runs as one task of this graph; its own versions are stored in the thread under the task's namespace."),
      ),
    );
  }
  parts.push(section("values", "Values", valuesView(v.values)));
  const w = v.writes;
  const how =
    v.source === "loop"
      ? el("p", {}, "Ran: ", ...(w.ran.length ? w.ran.map((n, i) => [i ? ", " : "", el("b", {}, n)]).flat() : ["(nothing)"]), ".")
      : el("p", {}, SOURCES[v.source] || "");
  const changes = w.changes.length
    ? w.changes.map((c) => el("div", { class: "change" }, el("p", {}, el("code", {}, c.key), " ", el("span", { class: `kind kind-${c.kind}` }, c.kind)), c.kind === "removed" ? null : valueView(c.value)))
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
  host.replaceChildren(...parts);
  host.dataset.version = v.checkpoint_id;
}

// A subgraph's task in a version's detail: opened, it lists the subgraph's
// versions under the task's namespace (oldest first), each with its values.
function subgraphTask(t, ctx) {
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
    ctx.getJson("/api/history", { graph: ctx.graph, thread: ctx.thread, checkpoint_ns: t.checkpoint_ns })
      .then((res) => {
        list.replaceChildren(
          ...(res.versions.length
            ? res.versions.map((sv) => subVersion(t.checkpoint_ns, sv, ctx))
            : [el("li", { class: "note" }, "No versions: the subgraph has not saved one from this task.")]),
        );
        box.dataset.loaded = "true";
      })
      .catch((err) => {
        loaded = false;
        if (err instanceof AuthError) return ctx.onError(err);
        list.replaceChildren(el("li", { class: "error" }, `Cannot read its versions: ${err.message}`));
      });
  });
  return box;
}

function subVersion(ns, sv, ctx) {
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
    ctx.getJson("/api/version", { graph: ctx.graph, thread: ctx.thread, checkpoint: sv.checkpoint_id, checkpoint_ns: ns })
      .then((detail) => {
        values.textContent = json(detail.values);
        values.hidden = false;
      })
      .catch(ctx.onError);
  });
  return item;
}

