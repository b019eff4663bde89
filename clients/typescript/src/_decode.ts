/**
 * Proto messages → the client's values. Pure; no I/O.
 *
 * @internal
 */

import { create } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";

import type {
  CheckpointSaved,
  CustomEvent,
  InterruptEvent,
  MessageChunk,
  MessageChunkValue,
  RunEvent,
  RunFinished,
  RunStarted,
  StepFinished,
  StepStarted,
  TaskFinished,
  TaskStarted,
  ValuesEvent,
} from "./events.js";
import { UnknownError } from "./errors.js";
import * as pb from "./gen/graphwire/v1/graphwire_pb.js";
import type { JsonCodec } from "./json.js";
import {
  FinishReason,
  type Assistant,
  type AssistantConfig,
  type CheckpointRef,
  type ErrorInfo,
  type GraphInfo,
  type Interrupt,
  type Item,
  OnDisconnect,
  RunStatus,
  type RunInfo,
  type RunPage,
  type StateSnapshot,
  type TurnRefused,
  type StateValues,
} from "./types.js";

const REASONS: ReadonlyMap<number, FinishReason> = new Map([
  [pb.FinishReason.END, FinishReason.END],
  [pb.FinishReason.INTERRUPT, FinishReason.INTERRUPT],
  [pb.FinishReason.ERROR, FinishReason.ERROR],
  [pb.FinishReason.RECURSION_LIMIT, FinishReason.RECURSION_LIMIT],
  [pb.FinishReason.CANCELLED, FinishReason.CANCELLED],
]);

const STATUSES: ReadonlyMap<number, RunStatus> = new Map([
  [pb.RunStatus.PENDING, RunStatus.PENDING],
  [pb.RunStatus.RUNNING, RunStatus.RUNNING],
  [pb.RunStatus.INTERRUPTED, RunStatus.INTERRUPTED],
  [pb.RunStatus.SUCCESS, RunStatus.SUCCESS],
  [pb.RunStatus.ERROR, RunStatus.ERROR],
  [pb.RunStatus.CANCELLED, RunStatus.CANCELLED],
  [pb.RunStatus.RECOVERING, RunStatus.RECOVERING],
  [pb.RunStatus.ROLLED_BACK, RunStatus.ROLLED_BACK],
]);

const REFUSALS: ReadonlyMap<number, TurnRefused["reason"]> = new Map([
  [pb.TurnRefusedReason.INTERRUPTED, "interrupted"],
  [pb.TurnRefusedReason.STALE_CHECKPOINT, "stale_checkpoint"],
]);

const ON_DISCONNECT: ReadonlyMap<number, OnDisconnect> = new Map([
  [pb.OnDisconnect.CANCEL, OnDisconnect.CANCEL],
  [pb.OnDisconnect.CONTINUE, OnDisconnect.CONTINUE],
]);

const EMPTY_REF = create(pb.CheckpointRefSchema);

/** Reads responses; payloads go through the client's JSON codec. */
export class Decoder {
  constructor(private readonly json: JsonCodec) {}

  /** The value of a `*Json` field's JSON text; null when empty (no value). */
  fromJson(text: string): unknown {
    return text === "" ? null : this.json.parse(text);
  }

  checkpointRef(m: pb.CheckpointRef): CheckpointRef {
    return {
      checkpointId: m.checkpointId,
      parentId: m.parentId || null,
      step: m.step ?? 0,
      source: m.source,
      next: [...m.next],
      createdAt: m.createdAt ? timestampDate(m.createdAt) : null,
    };
  }

  errorInfo(m: pb.ErrorInfo | undefined): ErrorInfo | null {
    return m === undefined ? null : { type: m.type, message: m.message };
  }

  interrupt(m: pb.Interrupt): Interrupt {
    return {
      interruptId: m.interruptId,
      node: m.node,
      taskId: m.taskId,
      value: this.fromJson(m.valueJson),
      responseSchema: m.responseSchemaJson ? this.fromJson(m.responseSchemaJson) : null,
    };
  }

  stateSnapshot<S>(m: pb.StateSnapshot): StateSnapshot<S> {
    return {
      values: this.fromJson(m.valuesJson) as S,
      next: [...m.next],
      checkpoint: this.checkpointRef(m.checkpoint ?? EMPTY_REF),
      metadata: (this.fromJson(m.metadataJson) ?? {}) as Record<string, unknown>,
      tasks: m.tasks.map((t) => ({
        taskId: t.taskId,
        node: t.node,
        interrupts: t.interrupts.map((i) => this.interrupt(i)),
        error: this.errorInfo(t.error),
        result: t.resultJson === undefined ? null : this.fromJson(t.resultJson),
        checkpointNs: t.checkpointNs,
        state: t.state === undefined ? null : this.stateSnapshot<StateValues>(t.state),
        path: t.pathJson ? (this.fromJson(t.pathJson) as unknown[]) : [],
      })),
      interrupts: m.interrupts.map((i) => this.interrupt(i)),
    };
  }

  item<V>(m: pb.Item): Item<V> {
    return {
      namespace: [...m.namespace],
      key: m.key,
      value: this.fromJson(m.valueJson) as V,
      createdAt: m.createdAt ? timestampDate(m.createdAt) : new Date(0),
      updatedAt: m.updatedAt ? timestampDate(m.updatedAt) : new Date(0),
      score: m.score ?? null,
    };
  }

  assistant(m: pb.Assistant): Assistant {
    return {
      assistantId: m.assistantId,
      graph: m.graph,
      name: m.name,
      description: m.description ?? null,
      config: (this.fromJson(m.configJson) ?? {}) as AssistantConfig,
      context: (this.fromJson(m.contextJson) ?? {}) as Record<string, unknown>,
      metadata: (this.fromJson(m.metadataJson) ?? {}) as Record<string, unknown>,
      version: m.version,
      createdAt: m.createdAt ? timestampDate(m.createdAt) : new Date(0),
      updatedAt: m.updatedAt ? timestampDate(m.updatedAt) : new Date(0),
    };
  }

  runInfo(m: pb.RunInfo): RunInfo {
    return {
      runId: m.runId,
      threadId: m.threadId,
      graph: m.graph,
      status: STATUSES.get(m.status) ?? RunStatus.UNSPECIFIED,
      requestId: m.requestId || null,
      replica: m.replica,
      attempts: m.attempts,
      startedAt: m.startedAt ? timestampDate(m.startedAt) : null,
      endedAt: m.endedAt ? timestampDate(m.endedAt) : null,
      checkpointId: m.checkpointId || null,
      call: m.call,
      callArgs: this.fromJson(m.callJson),
      reason: m.reason === pb.FinishReason.UNSPECIFIED ? null : (REASONS.get(m.reason) ?? FinishReason.UNSPECIFIED),
      error: this.errorInfo(m.error),
      interrupts: m.interrupts.map((i) => this.interrupt(i)),
      lastSeq: m.lastSeq,
      onDisconnect: ON_DISCONNECT.get(m.onDisconnect) ?? null,
      background: m.background,
      values: m.valuesJson ? this.fromJson(m.valuesJson) : null,
      replacedBy: m.replacedBy || null,
      replaces: m.replaces || null,
    };
  }

  turnRefused(m: pb.TurnRefused): TurnRefused {
    return {
      reason: REFUSALS.get(m.reason) ?? "unspecified",
      checkpointId: m.checkpointId || null,
      interrupts: m.interrupts.map((i) => this.interrupt(i)),
    };
  }

  runPage(m: pb.ListRunsResponse): RunPage {
    return { runs: m.runs.map((r) => this.runInfo(r)), nextBefore: m.nextBefore || null };
  }

  graphInfo(m: pb.GraphInfo): GraphInfo {
    return {
      name: m.name,
      description: m.description,
      nodes: m.nodes.map((n) => ({
        name: n.name,
        metadata: this.fromJson(n.metadataJson),
        subgraph: n.subgraph ? this.graphInfo(n.subgraph) : null,
      })),
      edges: m.edges.map((e) => ({
        source: e.source,
        target: e.target,
        conditional: e.conditional,
        label: e.label || null,
      })),
    };
  }

  /** The event a `RunEvent` carries; null for a kind this client does not know (skip it). */
  event<S>(m: pb.RunEvent): RunEvent<S> | null {
    const base = { seq: m.seq, runId: m.runId, namespace: [...m.namespace] };
    const e = m.event;
    switch (e.case) {
      case "runStarted":
        return {
          kind: "run_started",
          ...base,
          runId: m.runId || e.value.runId,
          threadId: e.value.threadId,
          graph: e.value.graph,
          checkpointId: e.value.checkpointId || null,
        } satisfies RunStarted;
      case "stepStarted":
        return {
          kind: "step_started",
          ...base,
          step: e.value.step ?? 0,
          tasks: e.value.tasks.map((t) => ({ taskId: t.taskId, node: t.node })),
        } satisfies StepStarted;
      case "stepFinished":
        return { kind: "step_finished", ...base, step: e.value.step ?? 0 } satisfies StepFinished;
      case "taskStarted":
        return {
          kind: "task_started",
          ...base,
          step: e.value.step ?? 0,
          taskId: e.value.taskId,
          node: e.value.node,
          input: this.fromJson(e.value.inputJson),
          triggers: [...e.value.triggers],
        } satisfies TaskStarted;
      case "taskFinished":
        return {
          kind: "task_finished",
          ...base,
          step: e.value.step ?? 0,
          taskId: e.value.taskId,
          node: e.value.node,
          update: this.fromJson(e.value.updateJson),
          error: this.errorInfo(e.value.error),
          interrupts: e.value.interrupts.map((i) => this.interrupt(i)),
          cached: e.value.cached,
        } satisfies TaskFinished;
      case "values":
        return {
          kind: "values",
          ...base,
          step: e.value.step ?? 0,
          values: this.fromJson(e.value.valuesJson) as S,
        } satisfies ValuesEvent<S>;
      case "custom":
        return {
          kind: "custom",
          ...base,
          step: e.value.step ?? 0,
          taskId: e.value.taskId,
          node: e.value.node,
          payload: this.fromJson(e.value.payloadJson),
        } satisfies CustomEvent;
      case "messageChunk": {
        const chunk = this.fromJson(e.value.chunkJson);
        const value: MessageChunkValue = isObject(chunk) ? chunk : { content: chunk };
        return {
          kind: "message_chunk",
          ...base,
          step: e.value.step ?? 0,
          taskId: e.value.taskId,
          node: e.value.node,
          chunk: value,
          metadata: this.fromJson(e.value.metadataJson),
          text: chunkText(value.content),
        } satisfies MessageChunk;
      }
      case "checkpointSaved":
        return {
          kind: "checkpoint_saved",
          ...base,
          checkpoint: this.checkpointRef(e.value.checkpoint ?? EMPTY_REF),
        } satisfies CheckpointSaved;
      case "interrupt":
        return { kind: "interrupt", ...base, ...this.interrupt(e.value) } satisfies InterruptEvent;
      case "runFinished":
        return {
          kind: "run_finished",
          ...base,
          reason: REASONS.get(e.value.reason) ?? FinishReason.UNSPECIFIED,
          checkpoint: e.value.checkpoint ? this.checkpointRef(e.value.checkpoint) : null,
          values: this.fromJson(e.value.valuesJson) as S | null,
          error: this.errorInfo(e.value.error),
          interrupts: e.value.interrupts.map((i) => this.interrupt(i)),
        } satisfies RunFinished<S>;
      default:
        return null; // a kind from a newer server, or none: skip it
    }
  }
}

/** Decoding a response the server sent; a failure there is the server's (UNKNOWN), not the caller's. */
export function decoded<T>(decode: () => T): T {
  try {
    return decode();
  } catch (cause) {
    throw new UnknownError(`could not decode the server's response: ${String(cause)}`, { cause });
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A chunk's content as text: a string, or the text parts of a list of content blocks. */
function chunkText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const part of content) {
    if (typeof part === "string") text += part;
    else if (isObject(part) && part["type"] === "text" && typeof part["text"] === "string") text += part["text"];
  }
  return text;
}
