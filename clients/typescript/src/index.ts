/**
 * @graphwire/client: the TypeScript client of the graphwire service.
 *
 * `Client` calls a graphwire server, which runs LangGraph-style agent graphs,
 * one turn per call:
 *
 * ```ts
 * import { Client } from "@graphwire/client";
 *
 * const client = new Client("127.0.0.1:50051");
 * const run = client.invoke("reminders", "thread-1", { messages: [{ role: "user", content: "hi" }] });
 * for await (const event of run) {
 *   if (event.kind === "message_chunk") process.stdout.write(event.text);
 * }
 * let result = await run.result();
 * while (result.interrupted) {
 *   result = await client.resume("reminders", "thread-1", "yes").result();
 * }
 * ```
 *
 * `invoke`/`resume`/`fork` return a `Run` (an async iterable of typed
 * events with a `result()` promise, and its `runId` and `seq`); calls that
 * fail with UNAVAILABLE are retried with one `requestId`, and a run started
 * with `onDisconnect: "continue"` is re-joined after a dropped stream
 * (`joinRun`, `getRun` and `listRuns` follow runs from any replica); values are plain JSON-decoded
 * objects; failed calls throw a subclass of `GraphwireError` named after the
 * gRPC status code; a node's error is not thrown but reported in the result.
 * `client.store` reads and writes the server's store (long-term memory
 * shared by threads): `putItem`, `getItem`, `searchItems`, `deleteItem`,
 * `listNamespaces`, as in LangGraph's SDK. `client.assistants` keeps
 * assistants, versioned configurations of the server's graphs that a run
 * names with `assistantId`: `create`, `get`, `update`, `setLatest`,
 * `getVersions`, `search`, `count`, `delete`, as in LangGraph's SDK.
 *
 * @module
 */

export {
  Client,
  type CallOptions,
  type CancelOptions,
  type ClientOptions,
  type ForkOptions,
  type GetStateOptions,
  type HistoryOptions,
  type InvokeOptions,
  type JoinRunOptions,
  type ListRunsOptions,
  type ResumeOptions,
  type RetryPolicy,
  type RunSettings,
  type UpdateStateOptions,
} from "./client.js";
export type { Run, RunResult } from "./run.js";
export {
  AssistantsClient,
  type AssistantSortBy,
  type CountAssistantsParams,
  type CreateAssistantParams,
  type GetAssistantVersionsParams,
  type SearchAssistantsParams,
  type UpdateAssistantParams,
} from "./assistants.js";
export {
  StoreClient,
  type GetItemOptions,
  type ListNamespacesOptions,
  type PutItemOptions,
  type SearchItemsOptions,
} from "./store.js";
export {
  ThreadsClient,
  type CreateThreadOptions,
  type SearchThreadsOptions,
  type Thread,
  type ThreadFilterOptions,
  type ThreadPage,
  type ThreadStatus,
  type TtlStrategy,
  type UpdateThreadOptions,
} from "./threads.js";
export type {
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
  TaskRef,
  TaskStarted,
  ValuesEvent,
} from "./events.js";
export {
  Durability,
  EventKind,
  FinishReason,
  IfInterrupted,
  MultitaskStrategy,
  OnDisconnect,
  RunStatus,
  type TurnRefused,
  type Assistant,
  type AssistantConfig,
  type RunInfo,
  type RunPage,
  type CheckpointRef,
  type ErrorInfo,
  type GraphEdge,
  type GraphInfo,
  type GraphNode,
  type Interrupt,
  type Item,
  type StateSnapshot,
  type StateValues,
  type TaskState,
} from "./types.js";
export {
  AbortedError,
  AlreadyExistsError,
  CancelledError,
  Code,
  DataLossError,
  DeadlineExceededError,
  FailedPreconditionError,
  GraphwireError,
  InternalError,
  InvalidArgumentError,
  NotFoundError,
  OutOfRangeError,
  PermissionDeniedError,
  ResourceExhaustedError,
  UnauthenticatedError,
  UnavailableError,
  UnimplementedError,
  UnknownError,
  errorForCode,
  type CodeName,
  type ErrorMetadata,
  type GraphwireErrorOptions,
} from "./errors.js";
export { bigIntJson, standardJson, type JsonCodec } from "./json.js";
export {
  messageRole,
  messageText,
  toolCalls,
  userMessage,
  type Message,
  type Role,
  type ToolCall,
} from "./messages.js";
export { VERSION } from "./version.js";
