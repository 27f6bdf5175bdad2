import { H3, serve } from "h3";
import { createExposition } from "./exposition.ts";
import type { HealthRegistry } from "../health/registry.ts";
import type { Registry } from "prom-client";
import { addDiagnostics, type DiagnosticsSource } from "./diagnostics.ts";
import { json, text } from "./responses.ts";
import { UserError } from "../runtime/user-error.ts";

/**
 * What /status serves (spec 4.1), asked on each request: undefined on a standby (the leader serves it);
 * `pro` false in Community (text with the Edition section; JSON 402 `pro_required`).
 */
export type StatusSource = () =>
  | { readonly pro: true; readonly text: string; readonly json: unknown }
  | { readonly pro: false; readonly text: string }
  | undefined;

/** A running health server. */
export interface HealthServer {
  readonly url: string;
  /** Where it listens (`0.0.0.0:8060 (all interfaces)`, or the given host and port), for the log. */
  readonly listening: string;
  close(): Promise<void>;
}

/**
 * Serves the health endpoints of spec 4.1 on `port` (0 picks a free one): `/healthz` (liveness, 200 while the
 * process runs), `/readyz` (200 once required caches synced, else 503), `/availabilityz` (200 for a lock holder
 * or a replica waiting for the lock), `/health` (JSON report; 200 unless failed, then 503), `/metrics`
 * (Prometheus text exposition) and, with `status`, `/status` (text, `?format=json`; 503 on a standby). Bound to `hostname` (default all interfaces). Documented in docs/health.md.
 */
export async function startHealthServer(options: {
  port: number;
  hostname?: string;
  /** Why it listens on `hostname` when mon chose it (for the log line). */
  why?: string;
  health: HealthRegistry;
  metrics: Registry;
  /** `healthCheck.statusEndpoint`: serve /status from this source (else /status is 404). */
  status?: StatusSource;
  /** `healthCheck.diagnostics`: the bearer token and what the endpoints read (undefined on a standby). */
  diagnostics?: { token: string; source: () => DiagnosticsSource | undefined };
}): Promise<HealthServer> {
  const exposition = createExposition(options.metrics);
  const app = new H3()
    .get("/healthz", () => text(200, "ok\n"))
    .get("/readyz", () =>
      options.health.ready() ? text(200, "ok\n") : text(503, "not ready: required caches not synced\n"),
    )
    // Without leader election every replica is the lock holder; a standby waiting for the lock also passes (spec 4.1).
    .get("/availabilityz", () => text(200, "ok\n"))
    .get("/health", () => {
      const report = options.health.report();
      return json(report.status === "failed" ? 503 : 200, report);
    })
    .get(
      "/metrics",
      async () =>
        new Response(await exposition(), {
          status: 200,
          headers: { "content-type": options.metrics.contentType },
        }),
    );
  const status = options.status;
  if (status)
    app.get("/status", (event) => {
      const asJson = new URL(event.req.url).searchParams.get("format") === "json";
      const now = status();
      if (!now)
        return asJson
          ? json(503, { error: "not_leading" })
          : text(503, "this replica is a standby: the leader serves /status\n");
      if (!asJson) return text(200, now.text);
      return now.pro ? json(200, now.json) : json(402, { error: "pro_required" });
    });
  if (options.diagnostics) addDiagnostics(app, options.diagnostics.token, options.diagnostics.source);
  // Anything else: a fixed answer that echoes nothing of the request (its URL, Host header or method), so the
  // health port reflects no input back to whoever probes it (issue 30).
  app.all("/**", () => text(404, "not found\n"));
  const where = `${options.hostname ?? "0.0.0.0"}:${options.port}`;
  let server: ReturnType<typeof serve>;
  try {
    server = serve(app, { port: options.port, hostname: options.hostname, silent: true });
    await server.ready();
  } catch (error) {
    const inUse = /in use|EADDRINUSE/i.test((error as Error).message);
    throw new UserError(
      inUse
        ? `health server: port ${options.port} is already in use on ${options.hostname ?? "all interfaces"}; free it or set healthCheck.port`
        : `health server: cannot listen on ${where}: ${(error as Error).message}`,
    );
  }
  // `url` is an address a person can open; `listening` says where the server really listens.
  const port = server.url ? new URL(server.url).port : String(options.port);
  return {
    url: `http://${options.hostname ?? "localhost"}:${port}`,
    listening: options.hostname
      ? `${options.hostname}:${port}${options.why ? ` (${options.why})` : ""}`
      : `0.0.0.0:${port} (all interfaces)`,
    close: () => server.close(true),
  };
}
