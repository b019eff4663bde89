/**
 * A TCP proxy on 127.0.0.1 that a test uses to break connections (the twin
 * of the Python tests' tests/_proxy.py).
 *
 * Clients connect to `proxy.address`; each connection is relayed to the
 * upstream server. `cut()` resets every open connection at once (new ones
 * are still accepted); `hold()` stops delivering what the server sends on
 * the open connections (it is dropped), so a request reaches the server
 * while its caller hears nothing, until the test cuts the connection.
 */

import { createConnection, createServer, type Server, type Socket } from "node:net";

interface Pair {
  down: Socket;
  up: Socket;
  holding: boolean;
}

export class TcpProxy {
  /** "127.0.0.1:PORT", what clients dial. */
  address = "";
  /** Connections reset by `cut()` so far. */
  cuts = 0;
  readonly #upstream: { host: string; port: number };
  readonly #pairs = new Set<Pair>();
  #server: Server | null = null;

  private constructor(upstream: string) {
    const at = upstream.lastIndexOf(":");
    this.#upstream = { host: upstream.slice(0, at) || "127.0.0.1", port: Number(upstream.slice(at + 1)) };
  }

  static async start(upstream: string): Promise<TcpProxy> {
    const proxy = new TcpProxy(upstream);
    const server = createServer((down) => proxy.#accept(down));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    const bound = server.address();
    if (bound === null || typeof bound === "string") throw new Error("the proxy has no port");
    proxy.#server = server;
    proxy.address = `127.0.0.1:${bound.port}`;
    return proxy;
  }

  /** Resets every open connection; returns how many. */
  cut(): number {
    const pairs = [...this.#pairs];
    this.#pairs.clear();
    for (const { down, up } of pairs) {
      down.resetAndDestroy();
      up.resetAndDestroy();
    }
    this.cuts += pairs.length;
    return pairs.length;
  }

  /** From now on, drop what the server sends on the open connections (later ones are relayed as usual). */
  hold(): void {
    for (const pair of this.#pairs) pair.holding = true;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }

  #accept(down: Socket): void {
    const up = createConnection(this.#upstream);
    const pair: Pair = { down, up, holding: false };
    this.#pairs.add(pair);
    const drop = (): void => {
      if (!this.#pairs.delete(pair)) return;
      down.destroy();
      up.destroy();
    };
    down.on("data", (chunk) => up.write(chunk));
    up.on("data", (chunk) => {
      if (!pair.holding) down.write(chunk);
    });
    for (const socket of [down, up]) {
      socket.on("error", drop);
      socket.on("close", drop);
    }
  }
}
