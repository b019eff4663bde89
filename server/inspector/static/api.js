// The inspector's HTTP API: JSON reads and the server-sent event stream.
//
// The bearer token (when the server has one) arrives once as ?token=… in the
// page's URL, or typed into the prompt; it is kept in sessionStorage (this
// tab only) and sent as an Authorization header, and removed from the URL.
// The event stream is read with fetch, because EventSource cannot send headers.

const TOKEN_KEY = "graphwire-inspector-token";

export class AuthError extends Error {}

export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.message) || `HTTP ${status}`);
    this.status = status;
    this.code = body && body.error;
  }
}

export function takeTokenFromUrl() {
  const url = new URL(window.location.href);
  const token = url.searchParams.get("token");
  if (token !== null) {
    setToken(token);
    url.searchParams.delete("token");
    window.history.replaceState(null, "", url.pathname + url.search + url.hash);
  }
}

export function setToken(token) {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

function headers() {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? { Authorization: `Bearer ${token}` } : {};
}

export async function getJson(path, params = {}) {
  const query = new URLSearchParams(params).toString();
  const res = await fetch(query ? `${path}?${query}` : path, { headers: headers(), cache: "no-store" });
  let body = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  if (res.status === 401) throw new AuthError((body && body.message) || "unauthenticated");
  if (!res.ok) throw new ApiError(res.status, body);
  return body;
}

// Calls onMessage(msg) for every event of /api/events, reconnecting after a
// drop; onStatus("open" | "closed" | "unauthorized") reports the connection.
export function streamEvents(onMessage, onStatus) {
  let stopped = false;
  let controller = null;
  let delay = 500;

  async function once() {
    controller = new AbortController();
    const res = await fetch("/api/events", { headers: headers(), signal: controller.signal, cache: "no-store" });
    if (res.status === 401) {
      onStatus("unauthorized");
      stopped = true;
      return;
    }
    if (!res.ok || !res.body) throw new Error(`events: HTTP ${res.status}`);
    onStatus("open");
    delay = 500;
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trimStart())
          .join("\n");
        if (data) onMessage(JSON.parse(data));
      }
    }
  }

  (async () => {
    while (!stopped) {
      try {
        await once();
      } catch (err) {
        if (stopped) return;
      }
      if (stopped) return;
      onStatus("closed");
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 5000);
    }
  })();

  return () => {
    stopped = true;
    if (controller) controller.abort();
  };
}
