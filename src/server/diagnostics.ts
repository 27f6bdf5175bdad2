import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { getRouterParam, type H3, type H3Event } from "h3";
import { json } from "./responses.ts";

/** One provider's answer to a test alert. */
export interface TestAlertResult {
  readonly provider: string;
  readonly outcome: "delivered" | "retryable" | "rate_limited" | "rejected" | "unknown_provider";
  readonly detail?: string;
}

/** What the diagnostics endpoints read and do on the leader (app/replica/diagnostics.ts). */
export interface DiagnosticsSource {
  incidents(): unknown;
  /** One incident by id with the trace of every object it concerns; undefined when unknown. */
  incident(id: string): unknown;
  /** What mon did with one object (`Kind/namespace/name`, `Kind//name` when cluster-scoped), oldest first. */
  explain(object: string): unknown;
  deadLetters(): unknown;
  retryDeadLetter(id: string): "queued" | "missing" | "no_job";
  deleteDeadLetter(id: string): boolean;
  /** Sends a test alert through the named providers (all kept ones when empty) and reports each outcome. */
  testAlert(providers: readonly string[]): Promise<readonly TestAlertResult[]>;
  /** The incidents page (HTML, issue 44), its resolved list narrowed by `query` (`q`, `namespace`, `reason`). */
  incidentsPage(query: Readonly<Record<string, string>>): string;
  /** One incident's page (HTML); undefined when the page knows no such incident. */
  incidentPage(id: string): string | undefined;
}

/**
 * The cookie of a browser session, once the token was given on the login form (issues 44, 54): never the token
 * itself, but `<expiry s>.<nonce>.<HMAC-SHA256 keyed by the token>` — it expires (SESSION_SECONDS) and is
 * invalid as soon as the token changes; any replica with the same token accepts it.
 */
export const TOKEN_COOKIE = "mon_diagnostics";

/** How long a browser session lasts, seconds: 12 hours. */
export const SESSION_SECONDS = 43_200;

/**
 * The protected diagnostics endpoints (spec 4.1; docs/health.md "Diagnostics"), added to the health server
 * when `healthCheck.diagnostics.enabled`: `GET /incidents`, `GET /incidents/<id>` (with the trace of each object
 * it concerns), `GET /explain/<Kind>/<namespace>/<name>` (`mon explain`), `GET /deadletters`,
 * `POST /deadletters/:id/retry`, `DELETE /deadletters/:id`, `POST /test-alert` (JSON body
 * `{"providers": [...]}`, optional). Every request needs `Authorization: Bearer <token>`, compared in
 * constant time (401 otherwise). `source()` is undefined on a standby: 503 `not_leading`.
 *
 * A browser (a request that accepts `text/html`) gets `/incidents` and `/incidents/<id>` as HTML pages (issue 44).
 * It cannot send a bearer header: without one it gets a login form whose token (`?token=`) is checked, and
 * answered with a session in an HttpOnly, SameSite=Strict cookie (TOKEN_COOKIE: signed, expiring, never the
 * token) while the token is taken out of the address at once (303 to the same page). `now`: epoch ms.
 */
export function addDiagnostics(
  app: H3,
  token: string,
  source: () => DiagnosticsSource | undefined,
  now: () => number = Date.now,
): void {
  const wanted = digest(token);
  // Digests have one length, so the comparison takes the same time whatever was sent.
  const valid = (given: string | undefined) => Boolean(given) && timingSafeEqual(digest(given!), wanted);
  const guard =
    (handler: (d: DiagnosticsSource, event: H3Event) => Response | Promise<Response>) =>
    async (event: H3Event): Promise<Response> => {
      const given = /^Bearer (.+)$/.exec(event.req.headers.get("authorization") ?? "")?.[1];
      if (!valid(given)) return json(401, { error: "unauthorized" }, { "www-authenticate": 'Bearer realm="mon"' });
      const d = source();
      if (!d) return json(503, { error: "not_leading" });
      return handler(d, event);
    };
  // The pages: the bearer header, else the cookie, else the login form; `?token=` sets the cookie.
  const browser =
    (handler: (d: DiagnosticsSource, url: URL) => Response) =>
    async (event: H3Event): Promise<Response> => {
      const url = new URL(event.req.url);
      const offered = url.searchParams.get("token");
      if (offered !== null) {
        if (!valid(offered)) return loginPage(url.pathname, true);
        url.searchParams.delete("token");
        return new Response(null, {
          status: 303,
          headers: {
            location: `${url.pathname}${url.search}`,
            "set-cookie": `${TOKEN_COOKIE}=${session(token, now())}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_SECONDS}`,
          },
        });
      }
      const bearer = /^Bearer (.+)$/.exec(event.req.headers.get("authorization") ?? "")?.[1];
      if (!valid(bearer) && !validSession(token, cookie(event, TOKEN_COOKIE), now()))
        return loginPage(url.pathname, false);
      const d = source();
      if (!d)
        return html(503, "<!doctype html><title>mon</title><p>This mon is a standby: open the leader's page.</p>");
      return handler(d, url);
    };
  const wantsHtml = (event: H3Event) => (event.req.headers.get("accept") ?? "").includes("text/html");
  const incidentsJson = guard((d) => json(200, d.incidents()));
  const incidentsHtml = browser((d, url) => html(200, d.incidentsPage(Object.fromEntries(url.searchParams))));
  const incidentJson = guard((d, event) => {
    const found = d.incident(incidentId(new URL(event.req.url)));
    return found === undefined ? json(404, { error: "unknown_incident" }) : json(200, found);
  });
  const incidentHtml = browser((d, url) => {
    const page = d.incidentPage(incidentId(url));
    return page === undefined
      ? html(404, `<!doctype html><title>mon</title><p>No such incident. <a href="/incidents">All incidents</a></p>`)
      : html(200, page);
  });
  app
    .get("/incidents", (event) => (wantsHtml(event) ? incidentsHtml(event) : incidentsJson(event)))
    .get("/incidents/**", (event) => (wantsHtml(event) ? incidentHtml(event) : incidentJson(event)))
    .get(
      "/explain/**",
      guard((d, event) =>
        json(200, d.explain(decodeURIComponent(new URL(event.req.url).pathname.slice("/explain/".length)))),
      ),
    )
    .get(
      "/deadletters",
      guard((d) => json(200, d.deadLetters())),
    )
    .post(
      "/deadletters/:id/retry",
      guard((d, event) => {
        const result = d.retryDeadLetter(decodeURIComponent(getRouterParam(event, "id") ?? ""));
        if (result === "queued") return json(202, { status: "queued" });
        return json(result === "missing" ? 404 : 409, { error: result });
      }),
    )
    .delete(
      "/deadletters/:id",
      guard((d, event) =>
        d.deleteDeadLetter(decodeURIComponent(getRouterParam(event, "id") ?? ""))
          ? new Response(null, { status: 204 })
          : json(404, { error: "missing" }),
      ),
    )
    .post(
      "/test-alert",
      guard(async (d, event) => {
        const text = await event.req.text();
        let providers: string[] = [];
        if (text.trim()) {
          const body = safeJson(text) as { providers?: unknown } | undefined;
          if (!body || (body.providers !== undefined && !isStringList(body.providers)))
            return json(400, { error: 'the body must be {"providers": ["name", ...]}' });
          providers = (body.providers as string[] | undefined) ?? [];
        }
        return json(200, { results: await d.testAlert(providers) });
      }),
    );
}

// --- internal ---

/** The incident id of `/incidents/<id>`. */
function incidentId(url: URL): string {
  return decodeURIComponent(url.pathname.slice("/incidents/".length));
}

/** A new session's cookie value at `now` (epoch ms): expiry, nonce, and their HMAC keyed by the token. */
function session(token: string, now: number): string {
  const payload = `${Math.floor(now / 1000) + SESSION_SECONDS}.${randomBytes(12).toString("base64url")}`;
  return `${payload}.${sign(token, payload)}`;
}

/** True for a session cookie signed with `token` that has not expired at `now` (epoch ms). */
function validSession(token: string, value: string | undefined, now: number): boolean {
  const m = /^(\d+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/.exec(value ?? "");
  if (!m || Number(m[1]) * 1000 <= now) return false;
  return timingSafeEqual(Buffer.from(sign(token, `${m[1]}.${m[2]}`)), Buffer.from(m[3]!));
}

function sign(token: string, payload: string): string {
  return createHmac("sha256", `mon-session:${token}`).update(payload).digest("base64url");
}

function cookie(event: H3Event, name: string): string | undefined {
  for (const part of (event.req.headers.get("cookie") ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return decodeURIComponent(part.slice(at + 1).trim());
  }
  return undefined;
}

function html(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      // Nothing from elsewhere, no script: the page is HTML and inline styles only.
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'",
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      ...headers,
    },
  });
}

/** The form a browser gives the diagnostics token in (401): a GET to the same page with `?token=`. */
function loginPage(path: string, refused: boolean): Response {
  const action = path.replace(/[^A-Za-z0-9/_.%~-]/g, encodeURIComponent);
  return html(
    401,
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>mon · sign in</title></head><body style="font:14px system-ui;margin:24px"><h1>mon</h1>${refused ? "<p>That token is not the diagnostics token.</p>" : ""}<form method="get" action="${action}"><label>Diagnostics token (healthCheck.diagnostics.token) <input type="password" name="token" autofocus></label> <button type="submit">Open</button></form></body></html>`,
  );
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === "string");
}
