/**
 * Plain values the client returns: versions, snapshots, graphs, results.
 *
 * They mirror the messages of `proto/graphwire/v1/graphwire.proto` (see there
 * for what each field means), in camelCase, with the `*_json` fields already
 * decoded and named without the suffix (an empty one is `null`), unset strings as `null`, repeated
 * fields as arrays and timestamps as `Date`s. They describe what the server
 * said; the client never reads them back, so mutating them is harmless.
 *
 * @module
 */

/**
 * The kinds of run events a stream can carry; `eventKinds` picks them and
 * each event's `kind` is one of them. `run_started` and `run_finished` are
 * always sent.
 */
export const EventKind = {
  RUN_STARTED: "run_started",
  STEP_STARTED: "step_started",
  STEP_FINISHED: "step_finished",
  TASK_STARTED: "task_started",
  TASK_FINISHED: "task_finished",
  VALUES: "values",
  CUSTOM: "custom",
  MESSAGE_CHUNK: "message_chunk",
  CHECKPOINT_SAVED: "checkpoint_saved",
  INTERRUPT: "interrupt",
  RUN_FINISHED: "run_finished",
} as const;

/** An event kind's name, e.g. `"message_chunk"`. */
export type EventKind = (typeof EventKind)[keyof typeof EventKind];

/** Why a run ended. */
export const FinishReason = {
  /** The graph reached END. */
  END: "END",
  /** The run stopped at an interrupt (`resume` answers it) or a static breakpoint. */
  INTERRUPT: "INTERRUPT",
  /** A node raised; `error` says what. Versions saved before it stay. */
  ERROR: "ERROR",
  /** The run took `recursionLimit` steps without reaching END. */
  RECURSION_LIMIT: "RECURSION_LIMIT",
  /** `cancel()` (from any connection) or the server shutting down stopped it. */
  CANCELLED: "CANCELLED",
  /** A reason this client does not know (from a newer server). */
  UNSPECIFIED: "UNSPECIFIED",
} as const;

export type FinishReason = (typeof FinishReason)[keyof typeof FinishReason];

/** When a run writes the versions it saves (LangGraph's `durability`). */
export const Durability = {
  ASYNC: "async",
  SYNC: "sync",
  EXIT: "exit",
} as const;

export type Durability = (typeof Durability)[keyof typeof Durability];

/** What a run does when its caller's stream ends before it does. */
export const OnDisconnect = {
  /** The run is cancelled (the server's default); saved versions stay. */
  CANCEL: "cancel",
  /**
   * The run goes on: the client re-joins it (`JoinRun`) after a dropped connection, and
   * another replica continues it should its replica die.
   */
  CONTINUE: "continue",
} as const;

export type OnDisconnect = (typeof OnDisconnect)[keyof typeof OnDisconnect];

/** What a run call does when its thread already has a run (`multitaskStrategy`). */
export const MultitaskStrategy = {
  /** Fail at once with `AbortedError` (the default without `enqueue`). */
  REJECT: "reject",
  /** Wait for the running run to end, then run (as `enqueue: true`). */
  ENQUEUE: "enqueue",
  /** Cancel the running run, keep the versions it saved, then run. */
  INTERRUPT: "interrupt",
  /** Cancel the running run, delete the versions it saved, then run. */
  ROLLBACK: "rollback",
} as const;

export type MultitaskStrategy = (typeof MultitaskStrategy)[keyof typeof MultitaskStrategy];

/** What `invoke` does when the thread waits at an interrupt (`ifInterrupted`). */
export const IfInterrupted = {
  /** Start a new turn; the interrupt is dropped (the server's default). */
  DROP: "drop",
  /** Refuse with `FailedPreconditionError`; `client.turnRefused(error)` gives the pending interrupts. */
  REJECT: "reject",
} as const;

export type IfInterrupted = (typeof IfInterrupted)[keyof typeof IfInterrupted];

/** Why the server refused a chat-safe turn (`client.turnRefused(error)`). */
export interface TurnRefused {
  /** "interrupted" (`ifInterrupted: "reject"` and an interrupt is pending) or "stale_checkpoint" (`expectCheckpointId` is not the newest). */
  reason: "interrupted" | "stale_checkpoint" | "unspecified";
  /** The thread's newest version; null when it has none. */
  checkpointId: string | null;
  /** The interrupts pending on that version. */
  interrupts: Interrupt[];
}

/** Where a run is, by its record (`getRun`, `listRuns`). */
export const RunStatus = {
  PENDING: "pending",
  RUNNING: "running",
  INTERRUPTED: "interrupted",
  SUCCESS: "success",
  ERROR: "error",
  CANCELLED: "cancelled",
  /** Its replica died; another one is about to continue it. */
  RECOVERING: "recovering",
  /** Cancelled by a call with `multitaskStrategy: "rollback"`; its versions were deleted. */
  ROLLED_BACK: "rolled_back",
  /** A status this client does not know (from a newer server). */
  UNSPECIFIED: "unspecified",
} as const;

export type RunStatus = (typeof RunStatus)[keyof typeof RunStatus];

/**
 * A thread's state as the client sees it by default: a JSON object of state
 * keys. Pass your own shape as the type parameter of `invoke`, `getState`,
 * ... (`client.invoke<ChatState>(...)`); the client does not check it.
 */
export type StateValues = Record<string, unknown>;

/** An exception raised inside a run: its class name and message. */
export interface ErrorInfo {
  type: string;
  message: string;
}

/**
 * A question a node asked with `interrupt(value)`. Answer it with
 * `resume(graph, threadId, answer)`, or by `interruptId` with
 * `resume(graph, threadId, undefined, {resumes: {[interruptId]: answer}})` when
 * several are pending.
 */
export interface Interrupt {
  interruptId: string;
  node: string;
  taskId: string;
  /** What the node passed to `interrupt()`: typically the question to show. */
  value: unknown;
  /** The JSON Schema an answer must match, when the node gave one (`interrupt(value, response_schema=...)`); else null. */
  responseSchema: unknown;
}

/** Names one saved version of a thread and places it in the history. */
export interface CheckpointRef {
  checkpointId: string;
  /** The version this one was made from; null for the thread's first version. */
  parentId: string | null;
  /** -1 for an input version, then 0, 1, ...; a fork or update gets its parent's + 1. */
  step: number;
  /** Why it was saved: "input", "loop", "update" or "fork". */
  source: string;
  /** The nodes due next, in graph order; empty at END. */
  next: string[];
  createdAt: Date | null;
}

/** A task due in a version's next step. */
export interface TaskState {
  taskId: string;
  node: string;
  interrupts: Interrupt[];
  error: ErrorInfo | null;
  /** Its writes to the state once it finished (`{}`: none); null until then. */
  result: unknown;
  /** A subgraph node's task: the namespace its subgraph's versions are under (`""` otherwise). */
  checkpointNs: string;
  /** The subgraph's own snapshot (`getState` with `subgraphs: true`), when it has one. */
  state: StateSnapshot | null;
  /** Where it comes from, as LangGraph's `PregelTask.path` (`["__pregel_pull", node]`); `[]` when unknown. */
  path: unknown[];
}

/** One version of a thread's state, as `getState` and `history` return it. */
export interface StateSnapshot<S = StateValues> {
  values: S;
  next: string[];
  checkpoint: CheckpointRef;
  /** `source`, `step`, `parents` and whatever `runMetadata` added. */
  metadata: Record<string, unknown>;
  tasks: TaskState[];
  /** All pending interrupts of this version. */
  interrupts: Interrupt[];
}

/** A run's record, as every replica sees it (`getRun`, `listRuns`). */
export interface RunInfo {
  runId: string;
  threadId: string;
  graph: string;
  status: RunStatus;
  /** The `requestId` of the call that started it; null when none. */
  requestId: string | null;
  /** The replica running it, or that ran it last. */
  replica: string;
  /** 1, plus one per recovery after its replica died. */
  attempts: number;
  startedAt: Date | null;
  /** Null while it runs. */
  endedAt: Date | null;
  /** The thread's newest version when it ended. */
  checkpointId: string | null;
  /** The RPC that started it: "Invoke", "Resume", "Fork" or "UpdateState". */
  call: string;
  /** What that call asked (long strings cut): `{input}`, `{resume}`, `{checkpoint_id}`, ... */
  callArgs: unknown;
  /** Why it ended; null while it has not (and for a run cancelled by its caller leaving: `endedAt` says it ended). */
  reason: FinishReason | null;
  error: ErrorInfo | null;
  interrupts: Interrupt[];
  /** The `seq` of its last event so far. */
  lastSeq: number;
  onDisconnect: OnDisconnect | null;
  background: boolean;
  /**
   * The thread's state when it ended, read by `getRun` and by `listRuns` with `includeValues`;
   * null otherwise, and while it runs.
   */
  values: unknown;
  /** The run that cancelled this one (`multitaskStrategy` "interrupt" or "rollback"); null when none did. */
  replacedBy: string | null;
  /** The run this one cancelled as it started; null when none. */
  replaces: string | null;
}

/** A page of a thread's runs, newest first (`listRunsPage`). */
export interface RunPage {
  runs: RunInfo[];
  /** Where the next page starts (pass it as `before`); null on the last page. */
  nextBefore: string | null;
}

/** A node of a graph (`__start__` and `__end__` included). */
export interface GraphNode {
  name: string;
  metadata: unknown;
  /**
   * When the node is a subgraph (a compiled graph added as a node): that graph's own nodes and
   * edges, nested; its versions are read with `getState(…, { checkpointNs })` and
   * `history(…, { checkpointNs })`. Null otherwise.
   */
  subgraph: GraphInfo | null;
}

/** An edge of a graph; `conditional` when a router may take it. */
export interface GraphEdge {
  source: string;
  target: string;
  conditional: boolean;
  /** The router's path-map key when it differs from `target`. */
  label: string | null;
}

/** A graph the server runs. `edges` is empty from `graphs()`; use `graph(name)`. */
export interface GraphInfo {
  name: string;
  description: string;
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/**
 * An item of the server's store (long-term memory shared by every thread):
 * a JSON object kept under a namespace and a key.
 */
export interface Item<V = Record<string, unknown>> {
  /** Outermost label first, e.g. `["memories", "user-42"]`. */
  namespace: string[];
  key: string;
  value: V;
  /** When the key was first written (kept by later puts). */
  createdAt: Date;
  /** When the item was last written. */
  updatedAt: Date;
  /** Only from a search with a `query`: the similarity of the item's best-matching embedded field; null otherwise. */
  score: number | null;
}

/**
 * An assistant's config, in LangGraph's shape: the defaults of the runs that name the assistant
 * (a run's own `configurable` keys and `recursionLimit` win).
 */
export interface AssistantConfig {
  /** As a run's `configurable`. */
  configurable?: Record<string, unknown> | undefined;
  /** The most supersteps a run may take. */
  recursion_limit?: number | undefined;
}

/**
 * An assistant (one version of it): a named, versioned configuration of a registered graph, as in
 * LangGraph's Agent Server. A run naming it (`assistantId`) takes its `config` and `context` as
 * defaults. Each graph has a default assistant, made by the server (metadata
 * `{created_by: "system"}`), whose id is the one LangGraph's Agent Server gives it.
 */
export interface Assistant {
  assistantId: string;
  /** The registered graph it runs. */
  graph: string;
  /** "Untitled" unless one was given. */
  name: string;
  description: string | null;
  config: AssistantConfig;
  /** As a run's `context`; `{}`: none. */
  context: Record<string, unknown>;
  /** The caller's own; `{}`: none. */
  metadata: Record<string, unknown>;
  /** This version's number: 1, 2, ... */
  version: number;
  /** When the assistant was created (the same in all its versions). */
  createdAt: Date;
  /** When this version was made current. */
  updatedAt: Date;
}
