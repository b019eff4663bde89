/**
 * A chat server in front of graphwire: plain `node:http`, no framework.
 *
 * Each browser gets a user id (a cookie) and each user one graphwire thread.
 * A turn is one graphwire call, streamed back to the browser as server-sent
 * events while it runs:
 *
 *   POST /api/chat        {text}  → invoke with the user's message
 *   POST /api/answer      {text}  → resume: the user's answer to the pending question
 *   POST /api/regenerate          → fork from the version before the last reply
 *   GET  /api/conversation        → the messages so far, and the pending question
 *   POST /api/reset               → delete the thread
 *   GET  /                        → the page (public/index.html)
 *
 * The SSE stream of a turn:
 *
 *   event: start      {runId}
 *   event: chunk      {text}               a piece of the reply, as the model writes it
 *   event: interrupt  {id, question}       the graph asks something; answer with /api/answer
 *   event: done       {reason, reply, error}
 *   event: error      {code, message}      the call failed after the stream began
 *
 * A call that fails before its first event gets a plain HTTP error instead
 * (409 for a busy thread or nothing to answer, 404, 503, ...), with
 * `{error: {code, message}}`. When the browser goes away mid-turn, the
 * request's AbortSignal cancels the graphwire call, and with it the run.
 */

import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

import {
  Code,
  GraphwireError,
  NotFoundError,
  messageRole,
  messageText,
  type Client,
  type Message,
  type EventKind,
  type Run,
  type StateSnapshot,
} from "@graphwire/client";

/** The state of a chat graph, as far as this server reads it. */
export interface ChatState {
  messages?: ChatMessage[];
  [key: string]: unknown;
}

/** A message as graphwire sends it: LangChain's dict form (`type`) or `role`/`content`. */
export type ChatMessage = Message;

export interface ChatServerOptions {
  /** The graphwire client to call. */
  client: Client;
  /** The graph every user talks to. Default "reminders". */
  graph?: string;
}

/** What the browser needs while a turn runs; everything else stays on the server. */
const STREAM: EventKind[] = ["message_chunk", "interrupt"];
const MAX_BODY = 64 * 1024;
const MAX_TEXT = 4000;
const USER_COOKIE = "uid";
const USER_ID = /^[A-Za-z0-9_-]{1,64}$/;
const PAGE = readFileSync(new URL("../public/index.html", import.meta.url));

/** How a failed graphwire call looks to the browser. */
const HTTP_STATUS: Partial<Record<number, number>> = {
  [Code.INVALID_ARGUMENT]: 400,
  [Code.NOT_FOUND]: 404,
  [Code.FAILED_PRECONDITION]: 409,
  [Code.ABORTED]: 409,
  [Code.RESOURCE_EXHAUSTED]: 413,
  [Code.UNAVAILABLE]: 503,
  [Code.DEADLINE_EXCEEDED]: 504,
};

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function createChatServer(options: ChatServerOptions): Server {
  const { client } = options;
  const graph = options.graph ?? "reminders";

  const routes: Record<string, (req: IncomingMessage, res: ServerResponse, threadId: string) => Promise<void>> = {
    "GET /": async (_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
    },

    "GET /api/conversation": async (_req, res, threadId) => {
      let state: StateSnapshot<ChatState> | null = null;
      try {
        state = await client.getState<ChatState>(graph, threadId);
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error; // a new user: no thread yet
      }
      const question = state?.interrupts[0];
      sendJson(res, 200, {
        messages: (state?.values.messages ?? [])
          .filter(shown)
          .map((m) => ({ role: messageRole(m), content: messageText(m) })),
        question: question === undefined ? null : asText(question.value),
      });
    },

    "POST /api/chat": async (req, res, threadId) => {
      const text = await readText(req);
      await streamTurn(res, (signal) =>
        client.invoke<ChatState>(
          graph,
          threadId,
          { messages: [{ role: "user", content: text }] },
          { eventKinds: STREAM, signal },
        ),
      );
    },

    "POST /api/answer": async (req, res, threadId) => {
      const text = await readText(req);
      await streamTurn(res, (signal) =>
        client.resume<ChatState>(graph, threadId, text, { eventKinds: STREAM, signal }),
      );
    },

    "POST /api/regenerate": async (_req, res, threadId) => {
      const history = await client.history<ChatState>(graph, threadId);
      const checkpointId = versionBeforeLastReply(history);
      await streamTurn(res, (signal) =>
        client.fork<ChatState>(graph, threadId, checkpointId, { eventKinds: STREAM, signal }),
      );
    },

    "POST /api/reset": async (_req, res, threadId) => {
      try {
        await client.deleteThread(graph, threadId);
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
      }
      res.writeHead(204).end();
    },
  };

  return createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const route = routes[`${req.method} ${path}`];
    if (route === undefined) {
      sendJson(res, 404, { error: { code: "NOT_FOUND", message: `no route ${req.method} ${path}` } });
      return;
    }
    route(req, res, `user-${userId(req, res)}`).catch((error: unknown) => {
      if (res.headersSent) {
        res.end();
        return;
      }
      if (error instanceof HttpError) {
        sendJson(res, error.status, { error: { code: error.code, message: error.message } });
      } else if (error instanceof GraphwireError) {
        sendJson(res, HTTP_STATUS[error.code] ?? 502, { error: describe(error) });
      } else {
        console.error(error);
        sendJson(res, 500, { error: { code: "INTERNAL", message: "internal error" } });
      }
    });
  });
}

/**
 * Streams one graphwire call as server-sent events. Headers go out with the
 * run's first event, so a call that fails at once (a busy thread, nothing
 * to answer) is still an ordinary HTTP error.
 */
async function streamTurn(res: ServerResponse, start: (signal: AbortSignal) => Run<ChatState>): Promise<void> {
  const browser = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) browser.abort(new Error("the browser went away"));
  });
  const run = start(browser.signal);
  const send = (event: string, data: unknown): void => {
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  try {
    for await (const event of run) {
      switch (event.kind) {
        case "run_started":
          res.writeHead(200, {
            "content-type": "text/event-stream; charset=utf-8",
            "cache-control": "no-cache",
            "x-accel-buffering": "no",
          });
          send("start", { runId: event.runId });
          break;
        case "message_chunk":
          if (event.text) send("chunk", { text: event.text });
          break;
        case "interrupt":
          send("interrupt", { interruptId: event.interruptId, question: asText(event.value) });
          break;
        case "run_finished":
          send("done", {
            reason: event.reason,
            reply: event.reason === "END" ? asReply(lastReply(event.values)) : null,
            error: event.error,
          });
          break;
      }
    }
    res.end();
  } catch (error) {
    if (browser.signal.aborted) return; // nobody is listening any more
    if (!res.headersSent) throw error; // the route turns it into an HTTP error
    send("error", error instanceof GraphwireError ? describe(error) : { code: "INTERNAL", message: "internal error" });
    res.end();
  }
}

/**
 * The version to fork from to write the last reply again: the newest
 * version on the current branch that does not hold that reply yet.
 */
function versionBeforeLastReply(history: StateSnapshot<ChatState>[]): string {
  const head = history[0];
  if (head === undefined) throw new HttpError(409, "NOTHING_TO_REGENERATE", "there is no conversation yet");
  if (head.interrupts.length > 0) throw new HttpError(409, "QUESTION_PENDING", "answer the pending question first");
  const reply = lastReply(head.values);
  if (reply?.id === undefined) throw new HttpError(409, "NOTHING_TO_REGENERATE", "there is no reply to regenerate");
  const byId = new Map(history.map((s) => [s.checkpoint.checkpointId, s]));
  for (let version: StateSnapshot<ChatState> | undefined = head; version;) {
    if (!(version.values.messages ?? []).some((m) => m.id === reply.id)) return version.checkpoint.checkpointId;
    version = byId.get(version.checkpoint.parentId ?? "");
  }
  throw new HttpError(409, "NOTHING_TO_REGENERATE", "the reply has no earlier version");
}

/** The last assistant message with something to say. */
function lastReply(values: ChatState | null): ChatMessage | undefined {
  return (values?.messages ?? []).filter((m) => messageRole(m) === "assistant" && shown(m)).at(-1);
}

function asReply(message: ChatMessage | undefined): string | null {
  return message === undefined ? null : messageText(message);
}

/** User and assistant messages with text (not tool calls or tool results). */
function shown(message: ChatMessage): boolean {
  const role = messageRole(message);
  return (role === "user" || role === "assistant") && messageText(message) !== "";
}

function asText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function describe(error: GraphwireError): { code: string; message: string } {
  return { code: error.codeName, message: error.message };
}

/** The user's id from the cookie, or a new one (sent back as a cookie). */
function userId(req: IncomingMessage, res: ServerResponse): string {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [name, value] = part.trim().split("=");
    if (name === USER_COOKIE && value !== undefined && USER_ID.test(value)) return value;
  }
  const id = randomUUID();
  res.setHeader("set-cookie", `${USER_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax; Max-Age=31536000`);
  return id;
}

/** The `text` of a JSON request body. */
async function readText(req: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of req.setEncoding("utf8")) {
    body += chunk;
    if (body.length > MAX_BODY) throw new HttpError(413, "TOO_LARGE", "the request body is too large");
  }
  let text: unknown;
  try {
    text = (JSON.parse(body) as { text?: unknown }).text;
  } catch {
    throw new HttpError(400, "BAD_REQUEST", 'send JSON: {"text": "..."}');
  }
  if (typeof text !== "string" || text.trim() === "" || text.length > MAX_TEXT) {
    throw new HttpError(400, "BAD_REQUEST", `"text" must be a non-empty string of at most ${MAX_TEXT} characters`);
  }
  return text.trim();
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(body));
}
