/**
 * Run events, as iterating a `Run` yields them.
 *
 * One interface per case of `RunEvent.event` in the proto, named as the
 * Python client names them, told apart by `kind` (an `EventKind`). Every
 * event carries `seq` (its place in the run, strictly increasing from 1) and
 * `runId`; payloads are decoded JSON. Narrow with a `switch`:
 *
 * ```ts
 * for await (const event of run) {
 *   switch (event.kind) {
 *     case "message_chunk": process.stdout.write(event.text); break;
 *     case "interrupt": console.log("?", event.value); break;
 *   }
 * }
 * ```
 *
 * @module
 */

import type { CheckpointRef, ErrorInfo, FinishReason, Interrupt, StateValues } from "./types.js";

interface EventBase {
  /**
   * The event's place in its run: strictly increasing from 1 (gaps when
   * `eventKinds` filtered kinds out).
   */
  seq: number;
  /** The run the event belongs to. */
  runId: string;
  /**
   * Where it happened: `[]` for the graph called; for an event of a subgraph
   * running in one of its tasks, one `"node:taskId"` per level, outermost
   * first (LangGraph's `stream(subgraphs=True)` namespace). A chat server
   * tells a supervisor's tokens from an agent's by it.
   */
  namespace: string[];
}

/** A task of a step: its id and the node it runs. */
export interface TaskRef {
  taskId: string;
  node: string;
}

/** The run began. Always the first event. */
export interface RunStarted extends EventBase {
  kind: "run_started";
  threadId: string;
  graph: string;
  /** The version it starts from; null for a new thread. */
  checkpointId: string | null;
}

/** A superstep began; `tasks` are about to run concurrently. */
export interface StepStarted extends EventBase {
  kind: "step_started";
  step: number;
  tasks: TaskRef[];
}

/** A superstep ended and its writes were applied. */
export interface StepFinished extends EventBase {
  kind: "step_finished";
  step: number;
}

/** A task began, with the input its node sees. */
export interface TaskStarted extends EventBase {
  kind: "task_started";
  step: number;
  taskId: string;
  node: string;
  input: unknown;
  triggers: string[];
}

/** A task ended: with its update, an error, interrupts, or `cached` (not run). */
export interface TaskFinished extends EventBase {
  kind: "task_finished";
  step: number;
  taskId: string;
  node: string;
  /** The node's state update; null when it raised, interrupted or returned none. */
  update: unknown;
  error: ErrorInfo | null;
  interrupts: Interrupt[];
  cached: boolean;
}

/** The thread's full state after a step (`step` -1: the input applied). */
export interface ValuesEvent<S = StateValues> extends EventBase {
  kind: "values";
  step: number;
  values: S;
}

/** Something a node wrote to its stream writer. */
export interface CustomEvent extends EventBase {
  kind: "custom";
  step: number;
  taskId: string;
  node: string;
  payload: unknown;
}

/** The usual shape of a message chunk: the message's id and a piece of its content. */
export interface MessageChunkValue {
  id?: string;
  content?: unknown;
  [key: string]: unknown;
}

/** A piece of a message a node is producing (an LLM token, say). */
export interface MessageChunk extends EventBase {
  kind: "message_chunk";
  step: number;
  taskId: string;
  node: string;
  /** The chunk as the node wrote it, typically `{id, content}`. */
  chunk: MessageChunkValue;
  /** Where it came from (model name, tags, ...). */
  metadata: unknown;
  /**
   * The chunk's text: `content` when it is a string, the concatenated
   * `text` of its `{type: "text"}` parts when it is a list, else "".
   * Concatenating a message's `text`s in `seq` order gives the message.
   */
  text: string;
}

/** A version of the thread's state was saved. */
export interface CheckpointSaved extends EventBase {
  kind: "checkpoint_saved";
  checkpoint: CheckpointRef;
}

/** A node asked a question with `interrupt(value)`; the run will stop. */
export interface InterruptEvent extends EventBase, Interrupt {
  kind: "interrupt";
}

/** The run ended. Always the last event. */
export interface RunFinished<S = StateValues> extends EventBase {
  kind: "run_finished";
  reason: FinishReason;
  /** The thread's newest version; null only when the thread has none. */
  checkpoint: CheckpointRef | null;
  /** The thread's state at `checkpoint`; null only when the thread has none. */
  values: S | null;
  /** Set when `reason` is "ERROR" or "RECURSION_LIMIT". */
  error: ErrorInfo | null;
  /** The pending questions when `reason` is "INTERRUPT". */
  interrupts: Interrupt[];
}

/** Any run event; switch on `kind`. */
export type RunEvent<S = StateValues> =
  | RunStarted
  | StepStarted
  | StepFinished
  | TaskStarted
  | TaskFinished
  | ValuesEvent<S>
  | CustomEvent
  | MessageChunk
  | CheckpointSaved
  | InterruptEvent
  | RunFinished<S>;
