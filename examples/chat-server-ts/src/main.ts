/**
 * Runs the chat server.
 *
 *   GRAPHWIRE_ADDRESS     the graphwire server (default 127.0.0.1:50051)
 *   GRAPHWIRE_AUTH_TOKEN  its bearer token, if it wants one
 *   GRAPHWIRE_GRAPH       the graph to talk to (default reminders)
 *   HOST, PORT            where to listen (default 127.0.0.1:8080)
 */

import { Client } from "@graphwire/client";

import { createChatServer } from "./server.js";

const env = process.env;
const client = new Client(env["GRAPHWIRE_ADDRESS"] ?? "127.0.0.1:50051", {
  token: env["GRAPHWIRE_AUTH_TOKEN"] || undefined,
});
const server = createChatServer({ client, graph: env["GRAPHWIRE_GRAPH"] ?? "reminders" });
const host = env["HOST"] ?? "127.0.0.1";
const port = Number(env["PORT"] ?? 8080);

server.listen(port, host, () => {
  console.log(`chat server on http://${host}:${port} (graphwire at ${client.address})`);
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server.close(() => client.close());
    server.closeAllConnections();
  });
}
