/**
 * Alerts and a dashboard on mon's own metrics (docs/monitoring.md), written once here and generated into
 * deploy/monitoring/ and the chart (scripts/gen-deploy.ts). Every metric they name is checked against
 * src/metrics.ts by src/deploy/monitoring.test.ts, so a renamed metric cannot leave a silent alert behind.
 */

/** One Prometheus alerting rule (the `rules` entry of a PrometheusRule group). */
export interface AlertRule {
  readonly alert: string;
  readonly expr: string;
  readonly for: string;
  readonly labels: { readonly severity: "critical" | "warning" };
  readonly annotations: { readonly summary: string; readonly description: string };
}

/** The alerts: what an on-call engineer must hear about mon itself. */
export const ALERT_RULES: readonly AlertRule[] = [
  {
    alert: "MonDeliveryDropped",
    expr: "sum by (provider, reason) (increase(mon_delivery_dropped_total[1h])) > 0",
    for: "0m",
    labels: { severity: "critical" },
    annotations: {
      summary: "mon dropped alerts for {{ $labels.provider }} ({{ $labels.reason }})",
      description: "A message no provider accepted within its retry window: an incident someone was not told about.",
    },
  },
  {
    alert: "MonDeadLetters",
    expr: "sum by (provider, reason) (increase(mon_delivery_dead_letters_total[1h])) > 0",
    for: "0m",
    labels: { severity: "warning" },
    annotations: {
      summary: "{{ $labels.provider }} refused mon's messages for good ({{ $labels.reason }})",
      description: "Permanent rejections (bad credentials, unknown channel): see /deadletters and retry once fixed.",
    },
  },
  {
    alert: "MonOutboxStuck",
    expr: "max by (provider) (mon_delivery_queue_oldest_age_seconds) > 900",
    for: "5m",
    labels: { severity: "warning" },
    annotations: {
      summary: "mon's oldest message for {{ $labels.provider }} has waited over 15 minutes",
      description: "The provider is down or rate-limiting; messages are kept and retried for 24 hours.",
    },
  },
  {
    alert: "MonNotReady",
    // absent(): no replica scraped at all (mon deleted, crash-looping, or its scrape broken) is not ready either.
    expr: "max(mon_ready) == 0 or absent(mon_ready)",
    for: "10m",
    labels: { severity: "critical" },
    annotations: {
      summary: "No mon replica has been ready for 10 minutes",
      description: "No leader with synced caches: failures in the cluster are not being detected. See /health.",
    },
  },
  {
    alert: "MonCoverageLost",
    expr: "sum by (reason) (mon_coverage_uncovered_kinds) > 0",
    for: "15m",
    labels: { severity: "warning" },
    annotations: {
      summary: "mon cannot watch some kinds ({{ $labels.reason }})",
      description: "Detectors of those kinds stay silent; /health lists the kinds (RBAC, an API gone, a sync timeout).",
    },
  },
  {
    alert: "MonLeadershipLost",
    expr: "increase(mon_leadership_losses_total[15m]) > 0",
    for: "0m",
    labels: { severity: "warning" },
    annotations: {
      summary: "A mon leader lost its state lock",
      description: "It could not renew its Lease (API server unreachable from it); a standby takes over.",
    },
  },
];

/** One dashboard panel: a title, its PromQL queries (with legends) and the unit Grafana shows. */
export interface Panel {
  readonly title: string;
  readonly unit: "short" | "s" | "bytes";
  readonly targets: readonly { readonly expr: string; readonly legend: string }[];
}

/** The dashboard's panels: incidents, delivery, queue and outbox depth, drops, coverage, memory. */
export const PANELS: readonly Panel[] = [
  { title: "Open incidents", unit: "short", targets: [{ expr: "max(mon_incidents_open)", legend: "open" }] },
  {
    title: "Incident decisions",
    unit: "short",
    targets: [{ expr: "sum by (action) (increase(mon_incidents_total[$__rate_interval]))", legend: "{{action}}" }],
  },
  {
    title: "Notifications by provider",
    unit: "short",
    targets: [
      {
        expr: "sum by (provider) (increase(mon_delivery_notifications_total[$__rate_interval]))",
        legend: "{{provider}}",
      },
    ],
  },
  {
    title: "Retries, dead letters and drops",
    unit: "short",
    targets: [
      {
        expr: "sum by (provider) (increase(mon_delivery_retries_total[$__rate_interval]))",
        legend: "retries {{provider}}",
      },
      {
        expr: "sum by (provider) (increase(mon_delivery_dead_letters_total[$__rate_interval]))",
        legend: "dead letters {{provider}}",
      },
      {
        expr: "sum by (provider) (increase(mon_delivery_dropped_total[$__rate_interval]))",
        legend: "dropped {{provider}}",
      },
    ],
  },
  {
    title: "Queue depth",
    unit: "short",
    targets: [{ expr: "max by (provider) (mon_delivery_queue_depth)", legend: "{{provider}}" }],
  },
  {
    title: "Oldest message waiting (outbox age)",
    unit: "s",
    targets: [{ expr: "max by (provider) (mon_delivery_queue_oldest_age_seconds)", legend: "{{provider}}" }],
  },
  {
    title: "Kinds not covered",
    unit: "short",
    targets: [{ expr: "sum by (reason) (mon_coverage_uncovered_kinds)", legend: "{{reason}}" }],
  },
  {
    title: "Ready replicas and leadership",
    unit: "short",
    targets: [
      { expr: "sum(mon_ready)", legend: "ready" },
      { expr: "sum(increase(mon_leader_takeovers_total[$__rate_interval]))", legend: "takeovers" },
    ],
  },
  {
    title: "Memory",
    unit: "bytes",
    targets: [
      { expr: "max by (pod) (process_resident_memory_bytes)", legend: "resident {{pod}}" },
      { expr: "max(mon_memory_soft_limit_bytes)", legend: "soft limit" },
    ],
  },
  {
    title: "Decision lag (p95)",
    unit: "s",
    targets: [
      {
        expr: "histogram_quantile(0.95, sum by (le) (rate(mon_pipeline_decision_lag_seconds_bucket[$__rate_interval])))",
        legend: "p95",
      },
    ],
  },
];

/** The PrometheusRule (Prometheus Operator) holding ALERT_RULES. */
/** The alerts as a plain Prometheus rule file (`rule_files:` of a Prometheus without the Operator, promtool). */
export function ruleFile(): object {
  return { groups: [{ name: "mon", rules: ALERT_RULES }] };
}

export function prometheusRule(namespace: string): object {
  return {
    apiVersion: "monitoring.coreos.com/v1",
    kind: "PrometheusRule",
    metadata: { name: "mon", namespace, labels: { "app.kubernetes.io/name": "mon" } },
    spec: ruleFile(),
  };
}

/** A Grafana dashboard (JSON model) of PANELS, two per row, on a chosen Prometheus data source. */
export function grafanaDashboard(): object {
  return {
    title: "mon",
    uid: "mon-overview",
    tags: ["mon", "kubernetes"],
    timezone: "utc",
    schemaVersion: 39,
    time: { from: "now-6h", to: "now" },
    templating: {
      list: [{ name: "datasource", type: "datasource", query: "prometheus" }],
    },
    panels: PANELS.map((p, i) => ({
      id: i + 1,
      type: "timeseries",
      title: p.title,
      datasource: { type: "prometheus", uid: "${datasource}" },
      gridPos: { h: 8, w: 12, x: (i % 2) * 12, y: Math.floor(i / 2) * 8 },
      fieldConfig: { defaults: { unit: p.unit }, overrides: [] },
      targets: p.targets.map((t, j) => ({
        refId: String.fromCharCode(65 + j),
        expr: t.expr,
        legendFormat: t.legend,
      })),
    })),
  };
}

/** The `mon_*` metric names an expression reads (histogram series names map to their metric). */
export function metricsIn(expr: string): string[] {
  return [...new Set([...expr.matchAll(/\bmon_[a-z_]+/g)].map((m) => m[0].replace(/_(bucket|sum|count)$/, "")))];
}
