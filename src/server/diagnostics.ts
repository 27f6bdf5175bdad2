import { createHash, timingSafeEqual } from "node:crypto";
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
}

/**
 * The protected diagnostics endpoints (spec 4.1; docs/health.md "Diagnostics"), added to the health server
 * when `healthCheck.diagnostics.enabled`: `GET /incidents`, `GET /incidents/<id>` (with the trace of each object
 * it concerns), `GET /explain/<Kind>/<namespace>/<name>` (`mon explain`), `GET /deadletters`,
 * `POST /deadletters/:id/retry`, `DELETE /deadletters/:id`, `POST /test-alert` (JSON body
 * `{"providers": [...]}`, optional). Every request needs `Authorization: Bearer <token>`, compared in
 * constant time (401 otherwise). `source()` is undefined on a standby: 503 `not_leading`.
 */
export function addDiagnostics(app: H3, token: string, source: () => DiagnosticsSource | undefined): void {
  const wanted = digest(token);
  const guard =
    (handler: (d: DiagnosticsSource, event: H3Event) => Response | Promise<Response>) =>
    async (event: H3Event): Promise<Response> => {
      const given = /^Bearer (.+)$/.exec(event.req.headers.get("authorization") ?? "")?.[1];
      // Digests have one length, so the comparison takes the same time whatever was sent.
      if (!given || !timingSafeEqual(digest(given), wanted))
        return json(401, { error: "unauthorized" }, { "www-authenticate": 'Bearer realm="mon"' });
      const d = source();
      if (!d) return json(503, { error: "not_leading" });
      return handler(d, event);
    };
  app
    .get(
      "/incidents",
      guard((d) => json(200, d.incidents())),
    )
    .get(
      "/incidents/**",
      guard((d, event) => {
        const id = decodeURIComponent(new URL(event.req.url).pathname.slice("/incidents/".length));
        const found = d.incident(id);
        return found === undefined ? json(404, { error: "unknown_incident" }) : json(200, found);
      }),
    )
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
