import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitUntil } from "./capture-server.ts";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];
/** Set by .ci/run: the file the background install of Chromium writes its exit code to when it ends. */
const INSTALLING = process.env.MON_BROWSER_INSTALL;

/** True when a browser is here or being installed (CI): a test that needs one runs. */
export function chromiumExpected(): boolean {
  return Boolean(CANDIDATES.some((p) => existsSync(p)) || INSTALLING);
}

/** The browser, once the background install (if any) has ended; throws when there is none then. */
export async function chromiumBinary(): Promise<string> {
  if (INSTALLING) await waitUntil(() => existsSync(INSTALLING), "the install of Chromium to end", 600_000);
  const found = CANDIDATES.find((p) => existsSync(p));
  if (!found)
    throw new Error(`no Chromium after its install (${INSTALLING ? readFileSync(INSTALLING, "utf8").trim() : "none"})`);
  return found;
}

/** A page open in headless Chromium, driven over the DevTools protocol (CDP) on loopback. */
export interface ChromiumPage {
  /** Loads `url` (redirects and cookies as a browser follows them) and waits for its load event. */
  open(url: string): Promise<void>;
  /** The value of a JavaScript expression in the page (the page itself runs no script: the test asks). */
  evaluate<T>(expression: string): Promise<T>;
  /** Writes a PNG of the viewport (`full`: the whole page) to `path`. */
  screenshot(path: string, full?: boolean): Promise<void>;
  close(): void;
}

/**
 * Starts `binary` (Debian's Chromium) headless with a profile of its own and one tab whose viewport is
 * `width` × `height` CSS pixels (`mobile`: a phone's, with touch and its viewport meta honoured), for tests that
 * measure a page as a reader's browser lays it out (issue 54: no horizontal scrolling at 390 px).
 */
export async function openChromium(
  binary: string,
  viewport: { width: number; height: number; mobile?: boolean },
): Promise<ChromiumPage> {
  const profile = mkdtempSync(join(tmpdir(), "mon-chromium-"));
  const child = spawn(binary, [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-extensions",
    "--hide-scrollbars",
    `--user-data-dir=${profile}`,
    "--remote-debugging-port=0",
    "about:blank",
  ]);
  const endpoint = await new Promise<string>((resolve, reject) => {
    let stderr = "";
    const timer = setTimeout(() => reject(new Error(`Chromium did not open DevTools: ${stderr.slice(-500)}`)), 60_000);
    child.stderr.on("data", (d) => {
      stderr += d;
      const found = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    });
    child.on("error", reject);
  });
  const ws = new WebSocket(endpoint);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = () => reject(new Error("could not connect to Chromium's DevTools"));
  });
  let next = 0;
  const pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  const events: { method: string; sessionId?: string }[] = [];
  ws.onmessage = (event) => {
    const m = JSON.parse(String(event.data));
    if (m.id !== undefined) {
      const p = pending.get(m.id);
      pending.delete(m.id);
      if (m.error) p?.reject(new Error(`${m.error.message}`));
      else p?.resolve(m.result);
    } else events.push(m);
  };
  const send = (method: string, params: object = {}, sessionId?: string): Promise<any> =>
    new Promise((resolve, reject) => {
      const id = ++next;
      pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  const { targetId } = await send("Target.createTarget", { url: "about:blank" });
  const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true });
  await send("Page.enable", {}, sessionId);
  await send(
    "Emulation.setDeviceMetricsOverride",
    { width: viewport.width, height: viewport.height, deviceScaleFactor: 1, mobile: viewport.mobile ?? false },
    sessionId,
  );
  return {
    async open(url) {
      const seen = events.length;
      await send("Page.navigate", { url }, sessionId);
      await waitUntil(
        () => events.slice(seen).some((e) => e.method === "Page.loadEventFired" && e.sessionId === sessionId),
        `${url} to load`,
        60_000,
      );
    },
    async evaluate(expression) {
      const r = await send("Runtime.evaluate", { expression, returnByValue: true }, sessionId);
      if (r.exceptionDetails) throw new Error(`${expression}: ${r.exceptionDetails.text}`);
      return r.result.value;
    },
    async screenshot(path, full = false) {
      const r = await send("Page.captureScreenshot", { format: "png", captureBeyondViewport: full }, sessionId);
      writeFileSync(path, Buffer.from(r.data, "base64"));
    },
    close() {
      ws.close();
      child.kill("SIGKILL");
    },
  };
}
