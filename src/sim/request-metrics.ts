import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * `apiserver_request_total` as kube-apiserver exposes it on `/metrics` (recorded in
 * fixtures/kube-apiserver-v1.32/nonresource/metrics.json): one counter per verb, group, version, resource,
 * subresource (or non-resource path) and HTTP code, counted when the answer is finished.
 */
export interface RequestMetrics {
  /** Counts `req` once `res` finishes. */
  observe(req: IncomingMessage, res: ServerResponse, url: URL): void;
  /** The Prometheus text exposition of the counters. */
  exposition(): string;
}

/** Creates the request counters of one simulated API server. */
export function createRequestMetrics(): RequestMetrics {
  const counts = new Map<string, number>();
  return {
    observe(req, res, url) {
      res.once("finish", () => {
        const key = labels(req.method ?? "GET", url, res.statusCode);
        counts.set(key, (counts.get(key) ?? 0) + 1);
      });
    },
    exposition() {
      const lines = [...counts.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, n]) => `apiserver_request_total{${key}} ${n}`);
      return [
        "# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
        "# TYPE apiserver_request_total counter",
        ...lines,
        "",
      ].join("\n");
    },
  };
}

// --- internal ---

function labels(method: string, url: URL, code: number): string {
  const parts = url.pathname.split("/").filter(Boolean);
  const isCore = parts[0] === "api";
  const isResource = (isCore && parts.length >= 3) || (parts[0] === "apis" && parts.length >= 4);
  const rest = isResource ? parts.slice(isCore ? 2 : 3) : [];
  if (rest[0] === "namespaces" && rest.length >= 3) rest.splice(0, 2);
  const named = rest.length >= 2;
  const verb =
    method === "GET"
      ? url.searchParams.get("watch") === "true" || url.searchParams.get("watch") === "1"
        ? "WATCH"
        : named
          ? "GET"
          : "LIST"
      : method === "PUT"
        ? "PUT"
        : method;
  const fields: [string, string][] = [
    ["code", String(code)],
    ["component", isResource ? "apiserver" : ""],
    ["dry_run", ""],
    ["group", isResource && !isCore ? parts[1]! : ""],
    ["resource", rest[0] ?? ""],
    ["scope", ""],
    ["subresource", isResource ? (rest[2] ?? "") : url.pathname],
    ["system_client", ""],
    ["verb", verb],
    ["version", isResource ? parts[isCore ? 1 : 2]! : ""],
  ];
  return fields.map(([k, v]) => `${k}="${v}"`).join(",");
}
