import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { COVERAGE_REASONS } from "./model/coverage.ts";

/**
 * Every `mon_*` metric this release exports (spec 4.2), declared once on a registry of its own (no global
 * default registry), plus the standard runtime and process collectors.
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // prom-client exports these three as gauges named `_total`, which Prometheus' own lint (`promtool check
  // metrics`) rejects; `nodejs_active_handles`, `nodejs_active_requests` and `nodejs_active_resources` carry
  // the same counts, by type.
  for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"])
    registry.removeSingleMetric(name);
  const counter = (name: string, help: string, labelNames: string[] = []) =>
    new Counter({ name, help, labelNames, registers: [registry] });
  const gauge = (name: string, help: string, labelNames: string[] = []) =>
    new Gauge({ name, help, labelNames, registers: [registry] });
  // Read when scraped: the daemon sets these sources once the parts they read exist.
  const sources: ScrapeSources = {};
  const scraped = (name: string, help: string, read: (g: Gauge) => void, labelNames: string[] = []) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        read(this);
      },
    });
  const metrics = {
    registry,
    /** Where the scrape-time gauges read from (absent: they keep their last value, 0 at first). */
    sources,
    ready: scraped(
      "mon_ready",
      "1 while /readyz succeeds on this replica (it leads and its required caches are synced), else 0.",
      (g) => g.set(sources.ready?.() ? 1 : 0),
    ),
    coverageUncovered: scraped(
      "mon_coverage_uncovered_kinds",
      "Kinds mon cannot watch, by coverage reason (permission_denied, api_unavailable, sync_timeout, ...).",
      (g) => {
        // Every reason at 0 when nothing is uncovered: a dashboard and an alert see 0, not "no data".
        g.reset();
        for (const reason of COVERAGE_REASONS) g.set({ reason }, 0);
        for (const [reason, n] of Object.entries(sources.uncovered?.() ?? {})) g.set({ reason }, n);
      },
      ["reason"],
    ),
    deliveryOldestAge: scraped(
      "mon_delivery_queue_oldest_age_seconds",
      "Age of the oldest message waiting (or being attempted) per provider, seconds; 0 when none waits.",
      (g) => {
        for (const [provider, seconds] of sources.outboxAges?.() ?? []) g.set({ provider }, seconds);
      },
      ["provider"],
    ),
    deliveryOutboxDepth: scraped(
      "mon_delivery_outbox_depth",
      "Jobs in the outbox not yet delivered (queued or being attempted), all providers; persisted in Pro.",
      (g) => g.set(sources.outboxDepth?.() ?? 0),
    ),
    deliveryOutboxDropped: counter(
      "mon_delivery_outbox_dropped_total",
      "Jobs dropped by the outbox's bounds: full (2,048 jobs, the oldest makes room) or older than 24 h.",
    ),
    deliveryOutboxWriteFailures: counter(
      "mon_delivery_outbox_write_failures_total",
      "Outbox records (jobs, dead letters) that could not be written to the state store.",
    ),
    renderedDetailsOmitted: counter(
      "mon_rendered_details_omitted_total",
      "Detail sections left out of a message by its bounds: findings past the 10 listed, problems past the 20 named in a summary or digest.",
    ),
    incidentsTotal: counter(
      "mon_incidents_total",
      "Incident lifecycle decisions by action (announce, update, resolve).",
      ["action"],
    ),
    incidentsOpen: gauge("mon_incidents_open", "Unresolved incidents that were announced."),
    findingsInGrace: gauge(
      "mon_findings_in_grace",
      "Findings on pods (or their workloads) of a node younger than 10 minutes, held 5 more minutes (young-node grace).",
    ),
    symptomsWaiting: gauge(
      "mon_symptoms_waiting",
      "Findings on a Service or workload waiting (at most 2 minutes) for the findings of the pods behind them, so the cause is told first.",
    ),
    deliveryNotifications: counter(
      "mon_delivery_notifications_total",
      "Notification attempts (every provider call), by provider.",
      ["provider"],
    ),
    deliveryRetries: counter(
      "mon_delivery_retries_total",
      "Retry attempts after a transient failure or rate limit, by provider and failure reason.",
      ["provider", "reason"],
    ),
    deliveryShortened: counter(
      "mon_delivery_shortened_total",
      "Messages a provider refused for size (or that were over its documented limit) and that were sent again shortened or split, by provider.",
      ["provider"],
    ),
    deliveryDropped: counter(
      "mon_delivery_dropped_total",
      "Notifications no provider accepted (retries exhausted, no fallback left), by provider and reason (retries_exhausted, retry_window). Alert on this to tell 'no incidents' from 'no deliveries'.",
      ["provider", "reason"],
    ),
    deliveryTerminalErrors: counter(
      "mon_delivery_terminal_errors_total",
      "Notifications failed with no fallback left, by provider and failure reason.",
      ["provider", "reason"],
    ),
    deliveryDeadLetters: counter(
      "mon_delivery_dead_letters_total",
      "Notifications rejected permanently and dead-lettered, by provider and reason (unauthorized, rejected).",
      ["provider", "reason"],
    ),
    deliveryResolvesLost: counter("mon_delivery_resolves_lost_total", "Resolve messages given up, by provider.", [
      "provider",
    ]),
    deliveryDeferred: counter("mon_delivery_deferred_total", "Jobs still queued at shutdown, by provider.", [
      "provider",
    ]),
    deliveryQueueDepth: gauge("mon_delivery_queue_depth", "Jobs waiting per provider.", ["provider"]),
    deliveryQueueSaturated: counter(
      "mon_delivery_queue_saturated_total",
      "Times the outbox was full (2048 jobs) and a job had to make room, by the provider of the job dropped.",
      ["provider"],
    ),
    deliveryPendingDropped: counter(
      "mon_delivery_pending_dropped_total",
      "Jobs dropped before delivery started, by provider and reason: outbox_full (to make room), expired (left over 24 h by an earlier process), provider_removed (no longer configured).",
      ["provider", "reason"],
    ),
    storageResets: counter(
      "mon_storage_resets_total",
      "State files set aside as state.db.corrupt and recreated, by reason (schema_mismatch, unreadable).",
      ["reason"],
    ),
    storageCorruptRecords: counter(
      "mon_storage_corrupt_records_total",
      "Stored records that could not be decoded and were skipped.",
    ),
    storageExpired: counter("mon_storage_expired_total", "Stored entries deleted by retention."),
    storageEvicted: counter(
      "mon_storage_evicted_total",
      "Stored entries deleted to meet the size cap (oldest dead letters first).",
    ),
    storageRewrites: counter("mon_storage_rewrites_total", "State file rewrites (VACUUM) to shrink it."),
    storageFileBytes: gauge("mon_storage_file_bytes", "State file size in bytes after the last maintenance round."),
    storageFreeBytes: gauge(
      "mon_storage_free_bytes",
      "Free pages of the state file in bytes after the last maintenance round.",
    ),
    storageWriteFailures: counter(
      "mon_storage_write_failures_total",
      "State writes that failed (delivery went on from memory).",
    ),
    trackerUntracked: counter(
      "mon_tracker_untracked_total",
      "Issue creates whose response did not name the issue (issue-tracker providers).",
    ),
    deliveryBudgetFolded: counter(
      "mon_delivery_budget_folded_total",
      "Notifications folded into an overflow digest by a provider's hourly budget, by provider.",
      ["provider"],
    ),
    deliveryDigestSkipped: counter(
      "mon_delivery_digest_skipped_total",
      "Overflow digests not sent because the provider skips plain messages (paging tools, trackers), by provider.",
      ["provider"],
    ),
    decisionLag: new Histogram({
      name: "mon_pipeline_decision_lag_seconds",
      help: "Seconds from a batch of cluster changes being submitted to its decisions being applied.",
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    informerHandlerPanics: counter("mon_informer_handler_panics_total", "Recovered informer handler failures."),
    panicsRecovered: counter(
      "mon_panics_recovered_total",
      "Contained failures by pipeline stage: detector (one detector family), incident (correlation and lifecycle), compose (rendering), announce (routing); the pass is retried.",
      ["stage"],
    ),
    auditDropped: counter(
      "mon_audit_dropped_total",
      "Audit entries dropped: the queue was full or the file could not be written.",
    ),
    redactedValues: counter("mon_redacted_values_total", "Sensitive values redacted before rendering."),
    sourceUnavailable: counter("mon_source_unavailable_total", "Required sources (informers) that became unavailable."),
    investigations: counter(
      "mon_investigations_total",
      "Announcement investigations (reading a crashed container's log): done, skipped (unreadable), late, timeout, shed (a flood: more than 1,000 reads waiting).",
      ["result"],
    ),
    unexplained: counter(
      "mon_unexplained_total",
      "Failures not explained: Warning events whose reason no rule maps (kind=event), announced incidents no finding of which names a cause (kind=incident).",
      ["kind"],
    ),
    kubeletStatsFailures: counter(
      "mon_kubelet_stats_failures_total",
      "Failed kubelet stats reads, one per node per round.",
    ),
    optionalApiUnavailable: counter("mon_optional_api_unavailable_total", "Optional APIs missing at watcher setup."),
    watcherSyncs: counter("mon_watcher_syncs_total", "Watcher cache syncs (first sync and every recovery)."),
    watcherSyncFailures: counter("mon_watcher_sync_failures_total", "Watcher cache sync failures (failing or late)."),
    componentDegradations: counter("mon_component_degradations_total", "Optional components that became degraded."),
    configOverlays: counter(
      "mon_config_overlay_changes_total",
      "Changes of the MonConfig overlay by result: applied (in-process restart on the merged configuration) or rejected (invalid; the current configuration stays, config_overlay_invalid).",
      ["result"],
    ),
    componentStalls: counter(
      "mon_component_stalls_total",
      "Required components that stopped reporting progress (watches found behind the API server or held, reopened).",
    ),
    componentUnexpectedStops: counter(
      "mon_component_unexpected_stops_total",
      "Components that stopped unexpectedly (an informer whose loop ended on a fault) and were started again.",
    ),
    memorySoftLimit: gauge(
      "mon_memory_soft_limit_bytes",
      "The soft memory limit: 90 % of MON_MEMORY_LIMIT, or GOMEMLIMIT when set (0 without either).",
    ),
    memoryPressure: counter(
      "mon_memory_pressure_total",
      "Checks that found the resident memory above the soft limit (each forced a garbage collection).",
    ),
    shutdownTimeouts: counter(
      "mon_shutdown_timeouts_total",
      "Components that did not stop within their time at shutdown (the process exits anyway).",
    ),
    leadershipAcquisitions: counter("mon_leadership_acquisitions_total", "Times this replica acquired the state lock."),
    leadershipLosses: counter("mon_leadership_losses_total", "Times this replica lost the state lock while leading."),
    leaderTakeovers: counter(
      "mon_leader_takeovers_total",
      "Acquisitions that took the state lock over from another holder (its term went up).",
    ),
    licenseState: gauge(
      "mon_license_state",
      "1 for the current license state (community, invalid, pending, active, grace, expired, revoked, conflict), else 0.",
      ["state"],
    ),
    licenseExpiry: gauge(
      "mon_license_expiry_timestamp_seconds",
      "When Pro ends if the license server is never reached again (lease end while active, grace end in grace); 0 without Pro.",
    ),
    telemetryAttempts: counter("mon_telemetry_attempts_total", "Telemetry heartbeats attempted."),
    telemetrySuccesses: counter("mon_telemetry_successes_total", "Telemetry heartbeats the server accepted."),
    telemetryRetries: counter("mon_telemetry_retries_total", "Telemetry heartbeats scheduled again after a failure."),
    telemetryFailures: counter(
      "mon_telemetry_failures_total",
      "Telemetry failures by reason (state_read, invalid_identity, network, http_status, state_write).",
      ["reason"],
    ),
    heartbeatFailures: counter(
      "mon_heartbeat_failures_total",
      "heartbeatMonitor pings that failed or were answered with a non-2xx status.",
    ),
    licenseRenewals: counter(
      "mon_license_renewals_total",
      "Activation and renewal attempts by result (success, rejected, error).",
      ["result"],
    ),
  };
  // Every series of a closed label set exists from the start, at 0 (spec 4.2: a dashboard or an alert sees 0,
  // not no data, before the first event).
  for (const action of ["announce", "update", "resolve"]) metrics.incidentsTotal.inc({ action }, 0);
  for (const result of ["done", "skipped", "late", "timeout"]) metrics.investigations.inc({ result }, 0);
  for (const kind of ["event", "incident"]) metrics.unexplained.inc({ kind }, 0);
  for (const stage of ["detector", "incident", "compose", "announce"]) metrics.panicsRecovered.inc({ stage }, 0);
  for (const result of ["success", "rejected", "error"]) metrics.licenseRenewals.inc({ result }, 0);
  for (const reason of ["schema_mismatch", "unreadable"]) metrics.storageResets.inc({ reason }, 0);
  return metrics;
}

/** What the scrape-time gauges read (spec 4.2: readiness, coverage, outbox age). */
export interface ScrapeSources {
  ready?: () => boolean;
  uncovered?: () => Readonly<Record<string, number>>;
  /** [provider, seconds] of every configured provider. */
  outboxAges?: () => readonly (readonly [string, number])[];
  /** Jobs in the outbox, all providers. */
  outboxDepth?: () => number;
}

/** The metric set of one daemon. */
export type Metrics = ReturnType<typeof createMetrics>;

/**
 * Creates the `mon_delivery_*` series of every configured provider at zero, so a dashboard or an alert sees
 * `0` rather than no data before the first failure. `reasons` lists, per counter, the failure reasons it can
 * carry (bounded: deliver/failure.ts).
 */
export function initDeliverySeries(
  metrics: Metrics,
  providers: readonly string[],
  reasons: {
    readonly retry: readonly string[];
    readonly dropped: readonly string[];
    readonly deadLetter: readonly string[];
    readonly terminal: readonly string[];
    readonly pending: readonly string[];
  },
): void {
  for (const provider of providers) {
    for (const c of [
      metrics.deliveryNotifications,
      metrics.deliveryResolvesLost,
      metrics.deliveryDeferred,
      metrics.deliveryQueueSaturated,
      metrics.deliveryBudgetFolded,
      metrics.deliveryDigestSkipped,
      metrics.deliveryShortened,
    ])
      c.inc({ provider }, 0);
    metrics.deliveryQueueDepth.set({ provider }, 0);
    for (const reason of reasons.retry) metrics.deliveryRetries.inc({ provider, reason }, 0);
    for (const reason of reasons.dropped) metrics.deliveryDropped.inc({ provider, reason }, 0);
    for (const reason of reasons.deadLetter) metrics.deliveryDeadLetters.inc({ provider, reason }, 0);
    for (const reason of reasons.terminal) metrics.deliveryTerminalErrors.inc({ provider, reason }, 0);
    for (const reason of reasons.pending) metrics.deliveryPendingDropped.inc({ provider, reason }, 0);
  }
}
