/**
 * Shared by the tests: a real graphwire server from this repository, and
 * small readers of the reminders conversation.
 *
 * The server is the Python one (`python -m server serve`, run from the
 * repository root); GRAPHWIRE_PYTHON names the interpreter (default python3).
 */

import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import type { Run, RunEvent, StateValues } from "@graphwire/client";
import { startServer, type GraphwireServer } from "@graphwire/client/testing";

/** The repository root: the nearest directory above this file with proto/graphwire. */
export const REPO_ROOT = ((): string => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "proto", "graphwire"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error("cannot find the repository root (a directory with proto/graphwire)");
    dir = parent;
  }
  return dir;
})();

export const PYTHON = process.env["GRAPHWIRE_PYTHON"] || "python3";

/** Starts the repository's server; `env` may set GRAPHWIRE_FORECAST_DELAY (seconds). */
export function startGraphwire(
  options: { args?: readonly string[]; env?: Record<string, string> } = {},
): Promise<GraphwireServer> {
  return startServer({
    command: [PYTHON, "-m", "server", "serve"],
    cwd: REPO_ROOT,
    args: ["--grace", "2", "--log-level", "WARNING", ...(options.args ?? [])],
    env: { GRAPHWIRE_FORECAST_DELAY: "0", ...options.env },
  });
}

/** The input of one user turn. */
export function user(text: string): { messages: { role: string; content: string }[] } {
  return { messages: [{ role: "user", content: text }] };
}

import type { Message } from "@graphwire/client";
export type { Message };

export interface ReminderState extends StateValues {
  messages: Message[];
  reminders: { text: string; at: string }[];
}

/** The last message of a state, which after a finished turn is the reply. */
export function lastMessage(values: StateValues | null): Message {
  const messages = (values?.["messages"] ?? []) as Message[];
  const last = messages.at(-1);
  if (last === undefined) throw new Error("no messages in the state");
  return last;
}

/** What the reminders example's forecast tool answers for a city (examples/reminders/_graph.py). */
export function forecastText(city: string): string {
  const h = BigInt("0x" + createHash("sha256").update(city.toLowerCase()).digest("hex"));
  const sky = ["sunny", "cloudy", "rainy", "windy", "snowy"][Number(h % 5n)];
  return `The forecast for ${city}: ${sky}, ${(h % 30n) + 1n}°C.`;
}

/** Reads a run until an event satisfies `predicate` and returns it (the run goes on). */
export async function until<S>(run: Run<S>, predicate: (event: RunEvent<S>) => boolean): Promise<RunEvent<S>> {
  for await (const event of run) {
    if (predicate(event)) return event;
  }
  throw new Error("the run ended before the awaited event");
}

/** True once the tools node (where the slow forecast waits) has started. */
export const inTools = (event: RunEvent<unknown>): boolean => event.kind === "task_started" && event.node === "tools";
