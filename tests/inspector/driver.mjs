// A headless Chromium that pytest drives: one JSON command per stdin line,
// one JSON reply per stdout line ({"id", "ok": true, "value"} or {"id", "error"}).
//
//   {"id": 1, "cmd": "goto", "url": "http://127.0.0.1:…/"}
//   {"id": 2, "cmd": "wait", "js": "(arg) => …", "arg": …, "timeout": 10000}
//   {"id": 3, "cmd": "eval", "js": "(arg) => …", "arg": …}
//   {"id": 4, "cmd": "click", "selector": "…", "timeout": 10000}
//   {"id": 5, "cmd": "screenshot", "path": "…"}
//   {"id": 6, "cmd": "problems"}   console errors, page errors, requests that left 127.0.0.1
//   {"id": 7, "cmd": "close"}
//
// The browser is Debian's /usr/bin/chromium (GRAPHWIRE_CHROMIUM overrides),
// never one Playwright downloads. Requests to any host but the page's own are
// refused and reported: the page must work offline.

import { createInterface } from "node:readline";
import { chromium } from "playwright-core";

const executablePath = process.env.GRAPHWIRE_CHROMIUM || "/usr/bin/chromium";
const browser = await chromium.launch({
  executablePath,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
const page = await context.newPage();
const problems = [];
page.on("console", (m) => {
  if (m.type() === "error") problems.push(`console: ${m.text()}`);
});
page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
await context.route("**/*", (route) => {
  const url = new URL(route.request().url());
  if (url.hostname === "127.0.0.1" || url.protocol === "data:") return route.continue();
  problems.push(`request off this machine: ${url.href}`);
  return route.abort();
});

// A function's source from Python → a function Playwright runs in the page
// (a string would be evaluated as an expression, not called with the argument).
const fn = (source) => new Function(`return (${source});`)();

const reply = (msg) => process.stdout.write(JSON.stringify(msg) + "\n");

async function run(c) {
  switch (c.cmd) {
    case "goto":
      await page.goto(c.url, { waitUntil: "load", timeout: c.timeout ?? 15000 });
      return null;
    case "wait":
      await page.waitForFunction(fn(c.js), c.arg ?? null, { timeout: c.timeout ?? 10000, polling: "raf" });
      return null;
    case "eval":
      return await page.evaluate(fn(c.js), c.arg ?? null);
    case "click":
      await page.click(c.selector, { timeout: c.timeout ?? 10000 });
      return null;
    case "screenshot":
      await page.screenshot({ path: c.path, fullPage: false });
      return c.path;
    case "problems":
      return problems.splice(0);
    case "close":
      await browser.close();
      return null;
    default:
      throw new Error(`unknown command ${c.cmd}`);
  }
}

reply({ id: 0, ok: true, value: browser.version() });
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const c = JSON.parse(line);
  try {
    reply({ id: c.id, ok: true, value: (await run(c)) ?? null });
  } catch (e) {
    reply({ id: c.id, ok: false, error: String((e && e.stack) || e) });
  }
  if (c.cmd === "close") break;
}
await browser.close().catch(() => {});
process.exit(0);
