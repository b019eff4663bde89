/**
 * The errors the client throws: one class per gRPC status code.
 *
 * ```
 * GraphwireError                 root; carries code, codeName, metadata
 * ├── NotFoundError              unknown graph, thread or checkpoint
 * ├── InvalidArgumentError       malformed request (the message names the field)
 * ├── FailedPreconditionError    resume with nothing pending
 * ├── AbortedError               the thread already has a run
 * ├── ResourceExhaustedError     message over the server's size limit
 * ├── UnauthenticatedError       missing or wrong token
 * ├── PermissionDeniedError
 * ├── UnavailableError           server down or unreachable (retry later)
 * ├── CancelledError             the call was cancelled (AbortSignal); `cause` is the signal's reason
 * ├── DeadlineExceededError      the call's `timeoutMs` passed
 * ├── AlreadyExistsError
 * ├── OutOfRangeError
 * ├── UnimplementedError         the server is older than this client
 * ├── InternalError
 * ├── DataLossError
 * └── UnknownError               anything else, including a broken stream
 * ```
 *
 * The tree mirrors the Python client's (`graphwire.NotFound`, ...), with
 * JavaScript's `Error` suffix. A node that raises inside a run is *not* one
 * of these: the run finishes with reason `"ERROR"` and `RunResult.error`
 * says what happened. These errors are for calls that failed as calls.
 *
 * @module
 */

/** gRPC status codes, by name. The numbers are the wire's. */
export const Code = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

/** A gRPC status code (a number; `Code.NOT_FOUND` is 5). */
export type Code = (typeof Code)[keyof typeof Code];

/** A status code's name, e.g. `"NOT_FOUND"`. */
export type CodeName = keyof typeof Code;

const NAMES = new Map<number, CodeName>(Object.entries(Code).map(([name, code]) => [code, name as CodeName]));

/** Trailing metadata of a failed call: `-bin` keys keep their bytes. */
export type ErrorMetadata = Readonly<Record<string, string | Uint8Array>>;

export interface GraphwireErrorOptions {
  /** The call's trailing metadata, where a server may put machine-readable detail. */
  metadata?: ErrorMetadata;
  /** What caused it: the AbortSignal's reason, a decoding failure, ... */
  cause?: unknown;
  /** The run's id, when a run call fails after its run started. */
  runId?: string | null;
  /** The call's `requestId` (run calls): the same call again with it is never applied twice. */
  requestId?: string | null;
}

/**
 * A call to the graphwire server failed. `code` is the gRPC status code;
 * `message` is the server's readable explanation. Catch a subclass
 * (`NotFoundError`, ...) or switch on `code`.
 */
export class GraphwireError extends Error {
  /** The gRPC status code. */
  readonly code: Code;
  /** The status code's name, e.g. `"NOT_FOUND"`. */
  readonly codeName: CodeName;
  /** The call's trailing metadata. */
  readonly metadata: ErrorMetadata;
  /** The run's id, when a run stopped by a dropped connection raised this (else null). */
  readonly runId: string | null;
  /** That run call's `requestId` (else null): calling again with it is the same call. */
  readonly requestId: string | null;

  constructor(code: Code, message: string, options: GraphwireErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.codeName = NAMES.get(code) ?? "UNKNOWN";
    this.metadata = options.metadata ?? {};
    this.runId = options.runId ?? null;
    this.requestId = options.requestId ?? null;
    this.name = new.target.name;
  }
}

// One subclass per code. Written out, not generated in a loop, so that each
// is a real class a caller can name in `instanceof` and in type positions.

/** Unknown graph, thread or checkpoint. */
export class NotFoundError extends GraphwireError {
  constructor(message: string, options?: GraphwireErrorOptions) {
    super(Code.NOT_FOUND, message, options);
  }
}

/** The request is malformed; the message names the field. */
export class InvalidArgumentError extends GraphwireError {
  constructor(message: string, options?: GraphwireErrorOptions) {
    super(Code.INVALID_ARGUMENT, message, options);
  }
}

/** The thread is not in a state that allows the call (e.g. nothing to resume). */
export class FailedPreconditionError extends GraphwireError {
  constructor(message: string, options?: GraphwireErrorOptions) {
    super(Code.FAILED_PRECONDITION, message, options);
  }
}

/** The thread already has a run; pass `enqueue: true` to wait for it. */
export class AbortedError extends GraphwireError {
  constructor(message: string, options?: GraphwireErrorOptions) {
    super(Code.ABORTED, message, options);
  }
}

/** A message is over the server's size limit, or a server limit was hit. */
export class ResourceExhaustedError extends GraphwireError {
  constructor(message: string, options?: GraphwireErrorOptions) {
    super(Code.RESOURCE_EXHAUSTED, message, options);
  }
}

/** The server wants a token (`new Client(address, {token})`) and got none or a wrong one. */
export class UnauthenticatedError extends GraphwireError {
  constructor(message: string, options?: GraphwireErrorOptions) {
    super(Code.UNAUTHENTICATED, message, options);
  }
}

/** The caller may not do this. */
export class PermissionDeniedError extends GraphwireError {
  constructor(message: string, options?: GraphwireErrorOptions) {
    super(Code.PERMISSION_DENIED, message, options);
  }
}

/** The server could not be reached or is shutting down; retrying may work. */
export class UnavailableError extends GraphwireError {
  constructor(message: string, options?: GraphwireErrorOptions) {
    super(Code.UNAVAILABLE, message, options);
  }
}

/** The call was cancelled, usually through its AbortSignal (`cause` is the signal's reason). */
export class CancelledError extends GraphwireError {
  constructor(message: string, options?: GraphwireErrorOptions) {
    super(Code.CANCELLED, message, options);
  }
}

/** The call's `timeoutMs` passed before it finished (its run is cancelled). */
export class DeadlineExceededError extends GraphwireError {
  constructor(message: string, options?: GraphwireErrorOptions) {
    super(Code.DEADLINE_EXCEEDED, message, options);
  }
}

/** What the call would create already exists. */
export class AlreadyExistsError extends GraphwireError {
  constructor(message: string, options?: GraphwireErrorOptions) {
    super(Code.ALREADY_EXISTS, message, options);
  }
}

/** A value is outside the range the server accepts. */
export class OutOfRangeError extends GraphwireError {
  constructor(message: string, options?: GraphwireErrorOptions) {
    super(Code.OUT_OF_RANGE, message, options);
  }
}

/** The server does not have this RPC (it is older than this client). */
export class UnimplementedError extends GraphwireError {
  constructor(message: string, options?: GraphwireErrorOptions) {
    super(Code.UNIMPLEMENTED, message, options);
  }
}

/** The server broke an invariant of its own. */
export class InternalError extends GraphwireError {
  constructor(message: string, options?: GraphwireErrorOptions) {
    super(Code.INTERNAL, message, options);
  }
}

/** Stored data was lost or corrupted. */
export class DataLossError extends GraphwireError {
  constructor(message: string, options?: GraphwireErrorOptions) {
    super(Code.DATA_LOSS, message, options);
  }
}

/** The call failed for a reason with no better status code. */
export class UnknownError extends GraphwireError {
  constructor(message: string, options?: GraphwireErrorOptions) {
    super(Code.UNKNOWN, message, options);
  }
}

type ErrorClass = new (message: string, options?: GraphwireErrorOptions) => GraphwireError;

const BY_CODE = new Map<number, ErrorClass>([
  [Code.CANCELLED, CancelledError],
  [Code.UNKNOWN, UnknownError],
  [Code.INVALID_ARGUMENT, InvalidArgumentError],
  [Code.DEADLINE_EXCEEDED, DeadlineExceededError],
  [Code.NOT_FOUND, NotFoundError],
  [Code.ALREADY_EXISTS, AlreadyExistsError],
  [Code.PERMISSION_DENIED, PermissionDeniedError],
  [Code.RESOURCE_EXHAUSTED, ResourceExhaustedError],
  [Code.FAILED_PRECONDITION, FailedPreconditionError],
  [Code.ABORTED, AbortedError],
  [Code.OUT_OF_RANGE, OutOfRangeError],
  [Code.UNIMPLEMENTED, UnimplementedError],
  [Code.INTERNAL, InternalError],
  [Code.UNAVAILABLE, UnavailableError],
  [Code.DATA_LOSS, DataLossError],
  [Code.UNAUTHENTICATED, UnauthenticatedError],
]);

/**
 * The typed error for a status code: the subclass named after it
 * (`UnknownError` for OK and for numbers gRPC does not define).
 */
export function errorForCode(code: number, message: string, options?: GraphwireErrorOptions): GraphwireError {
  const cls = BY_CODE.get(code) ?? UnknownError;
  return new cls(message, options);
}
