/**
 * Helpers for tests that need a real graphwire server:
 * `import { startServer } from "@graphwire/client/testing"`.
 *
 * `startServer()` starts `graphwire serve` as a child process on an
 * ephemeral port (127.0.0.1, port 0) with a SQLite checkpointer in a fresh
 * temporary directory, waits until the server prints the address it listens
 * on, and returns it. `stop()` sends SIGTERM (the server drains its runs)
 * and removes the directory.
 *
 * ```ts
 * const server = await startServer({ env: { GRAPHWIRE_FORECAST_DELAY: "0" } });
 * const client = new Client(server.address);
 * ...
 * client.close();
 * await server.stop();
 * ```
 *
 * @module
 */

import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface StartServerOptions {
  /** The command that serves, before its flags. Default `["graphwire", "serve"]`. */
  command?: readonly string[] | undefined;
  /** More flags, e.g. `["--auth-token", "s3cret"]` or `["--graph", "name=module:attr"]`. */
  args?: readonly string[] | undefined;
  /** The working directory (where graph modules are imported from). */
  cwd?: string | undefined;
  /** Environment variables, over this process's own. */
  env?: Readonly<Record<string, string>> | undefined;
  /** The checkpointer spec. Default: `graphwire.db` in a fresh temporary directory. */
  checkpointer?: string | undefined;
  /** How long the server may take to start, in milliseconds. Default 60000. */
  startTimeoutMs?: number | undefined;
}

export interface GraphwireServer {
  /** `host:port`, for `new Client(address)`. */
  readonly address: string;
  readonly port: number;
  /** The process id. */
  readonly pid: number;
  /** Everything the server has printed so far (stdout and stderr), for failure messages. */
  log(): string;
  /** Stops the server (SIGTERM, then SIGKILL after `graceMs`) and removes its temporary directory. */
  stop(graceMs?: number): Promise<void>;
}

const LISTENING = /graphwire listening on (\S+):(\d+)/;

/** Starts a graphwire server process and resolves once it listens. */
export async function startServer(options: StartServerOptions = {}): Promise<GraphwireServer> {
  const [program, ...base] = options.command ?? ["graphwire", "serve"];
  if (program === undefined) throw new TypeError("command is empty");
  const dir = await mkdtemp(join(tmpdir(), "graphwire-test-"));
  const checkpointer = options.checkpointer ?? join(dir, "graphwire.db");
  const child = spawn(
    program,
    [...base, "--address", "127.0.0.1:0", "--checkpointer", checkpointer, ...(options.args ?? [])],
    {
      cwd: options.cwd,
      env: { ...process.env, PYTHONUNBUFFERED: "1", ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let log = "";
  child.stdout.setEncoding("utf8");
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (text: string) => (log += text));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  const cleanup = async (): Promise<void> => {
    await rm(dir, { recursive: true, force: true });
  };

  const stop = async (graceMs = 15_000): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
    }
    await cleanup();
  };

  let address: { host: string; port: number };
  try {
    address = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`graphwire did not start within ${options.startTimeoutMs ?? 60_000} ms:\n${log}`));
      }, options.startTimeoutMs ?? 60_000);
      child.stdout.on("data", (text: string) => {
        log += text;
        const match = LISTENING.exec(log);
        if (match !== null) {
          clearTimeout(timer);
          resolve({ host: match[1]!, port: Number(match[2]) });
        }
      });
      child.once("error", (error) => {
        clearTimeout(timer);
        reject(new Error(`could not start ${program}: ${error.message}`));
      });
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`graphwire exited (${signal ?? `status ${code}`}) before it listened:\n${log}`));
      });
    });
  } catch (error) {
    await stop(1_000);
    throw error;
  }

  return {
    address: `${address.host}:${address.port}`,
    port: address.port,
    pid: child.pid!,
    log: () => log,
    stop,
  };
}
