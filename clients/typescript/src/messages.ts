/**
 * Chat messages as they cross the wire, with typed helpers.
 *
 * A graph that keeps LangChain messages (the server's `langchain` extra)
 * sends them in LangChain's own dict form: `type` ("human", "ai", "system",
 * "tool", …), `content`, `id`, `name`, `tool_calls`, `tool_call_id`,
 * `additional_kwargs`, `response_metadata`, `usage_metadata`. Such an object
 * can be sent back in unchanged. A graph of plain dict messages sends what it
 * keeps, usually `role`/`content`; input in that form is accepted by both.
 * These helpers read either form.
 *
 * @module
 */

/** A tool call an assistant message asks for. */
export interface ToolCall {
  id?: string | null;
  name: string;
  args: Record<string, unknown>;
  type?: string;
}

/** A message in LangChain's dict form (or the `role`/`content` form). */
export interface Message {
  type?: string;
  role?: string;
  content?: unknown;
  id?: string | null;
  name?: string | null;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  additional_kwargs?: Record<string, unknown>;
  response_metadata?: Record<string, unknown>;
  usage_metadata?: Record<string, unknown> | null;
  [key: string]: unknown;
}

/** The role a message speaks in: "user", "assistant", "system", "tool"…. */
export type Role = "user" | "assistant" | "system" | "tool" | "function" | "remove" | (string & {});

const ROLES: Record<string, Role> = {
  human: "user",
  HumanMessageChunk: "user",
  ai: "assistant",
  AIMessageChunk: "assistant",
  system: "system",
  SystemMessageChunk: "system",
  tool: "tool",
  ToolMessageChunk: "tool",
  function: "function",
  FunctionMessageChunk: "function",
  remove: "remove",
};

/** "user", "assistant"…, from `role` or LangChain's `type`; undefined if neither. */
export function messageRole(message: Message): Role | undefined {
  if (typeof message.role === "string") return message.role;
  return typeof message.type === "string" ? ROLES[message.type] : undefined;
}

/** The message's text: `content` itself, or its text parts joined. */
export function messageText(message: Message): string {
  const content = message.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) =>
        typeof part === "string"
          ? part
          : part !== null && typeof part === "object" && typeof (part as { text?: unknown }).text === "string"
            ? (part as { text: string }).text
            : "",
      )
      .join("");
  }
  return content === undefined || content === null ? "" : String(content);
}

/** The tool calls of an assistant message (an empty list for any other). */
export function toolCalls(message: Message): ToolCall[] {
  return Array.isArray(message.tool_calls) ? message.tool_calls : [];
}

/** A user's message to send as input. */
export function userMessage(content: unknown, options: { id?: string } = {}): Message {
  return options.id === undefined ? { role: "user", content } : { role: "user", content, id: options.id };
}
