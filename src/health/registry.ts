import type { CoverageReason } from "../model/coverage.ts";
import type { LockStatus } from "../model/lock.ts";

/** Component state values (spec 3.5 leaves them open; these four are mon's, documented in docs/health.md). */
export type ComponentState = "ok" | "pending" | "degraded" | "failed";

/** The fixed vocabulary of health reasons (spec 7.3). */
export const HEALTH_REASONS = [
  "component_failed",
  "component_stalled",
  "component_stopped",
  "timeout",
  "canceled",
  "cache_sync_pending",
  "cache_sync_timeout",
  "cache_sync_failed",
  "source_not_configured",
  "permission_denied",
  "optional_permission_denied",
  "api_unavailable",
  "optional_api_unavailable",
  "watcher_failed",
  "persistence_restore_failed",
  "storage_reset",
  "storage_over_cap",
  "provider_unavailable",
  "provider_rejected",
  "provider_rate_limited",
  "heartbeat_failed",
  "kubelet_unreachable",
  "kubelet_partially_unreachable",
  "config_overlay_invalid",
  "leadership_lost",
  "shutdown",
  "source_configuration_failed",
  "discovery_failed",
  "persistence_write_failed",
  "provider_shutdown_timeout",
  "rate_limited",
] as const;

/** A health reason of spec 7.3. */
export type HealthReason = (typeof HEALTH_REASONS)[number];

export type { CoverageReason } from "../model/coverage.ts";

/** One component's report. `required` components decide readiness; optional ones only degrade. */
export interface ComponentHealth {
  readonly state: ComponentState;
  readonly reason?: HealthReason;
  readonly required: boolean;
  /** Epoch ms of the last change. */
  readonly since: number;
}

/** The `/health` body (spec 2.6, 4.1; field names in docs/health.md). */
export interface HealthReport {
  status: "ok" | "starting" | "degraded" | "failed";
  stateLock: "held" | "waiting" | "not_used";
  /** The state lock when leader election runs: the Lease, its holder, this replica's term and last renewal. */
  lock?: { lease: string; holder?: string; identity: string; term?: number; renewedAt?: string };
  /** This process (spec 8 "runtime session"): pod name, POD_UID and NODE_NAME when set, start time, version. */
  session?: RuntimeSession;
  ready: boolean;
  components: Record<string, { state: ComponentState; reason?: HealthReason; required: boolean }>;
  /** Reasons of every component not ok, sorted, at most 20 (bounded degradation reasons). */
  reasons: HealthReason[];
  coverage: {
    kinds: { kind: string; reason: CoverageReason }[];
    reasons: Partial<Record<CoverageReason, number>>;
    truncated: number;
  };
  providers: { kept: string[]; inactive: string[] };
  /**
   * The current or last period the required caches were not synced after their first sync (mon was blind:
   * an API outage, a hung watch): `from`, and `to` once it ended (RFC 3339), its length in seconds so far,
   * and the reason of the kind that failed (docs/health.md).
   */
  unwatched?: { from: string; to?: string; seconds: number; reason: string };
}

/** Most kinds listed in `coverage.kinds` (spec 2.6, 8). */
export const COVERAGE_LIST_LIMIT = 50;

const KNOWN = new Set<string>(HEALTH_REASONS);

/**
 * The component registry (health/): each component reports `{state, reason}` from the fixed vocabulary; a
 * reason outside it is reported as `component_failed` (raw errors stay in logs). `onChange` sees every
 * transition (the daemon counts degradations and failures from it).
 */
export class HealthRegistry {
  private readonly components = new Map<string, ComponentHealth>();
  private providers: { kept: string[]; inactive: string[] } = { kept: [], inactive: [] };
  private coverageKinds: { kind: string; reason: CoverageReason }[] = [];
  private lock: (() => LockStatus) | undefined;
  private session: RuntimeSession | undefined;
  private unwatched: { from: number; to?: number; reason: string } | undefined;

  constructor(
    private readonly now: () => number,
    private readonly onChange?: (name: string, next: ComponentHealth, previous?: ComponentHealth) => void,
  ) {}

  /** Records a component's state. A reason outside the vocabulary becomes `component_failed`. */
  set(name: string, state: ComponentState, options: { reason?: string; required?: boolean } = {}): void {
    const previous = this.components.get(name);
    const required = options.required ?? previous?.required ?? false;
    const reason =
      state === "ok"
        ? undefined
        : options.reason === undefined
          ? undefined
          : KNOWN.has(options.reason)
            ? (options.reason as HealthReason)
            : "component_failed";
    if (previous && previous.state === state && previous.reason === reason && previous.required === required) return;
    const next: ComponentHealth = { state, required, since: this.now(), ...(reason ? { reason } : {}) };
    this.components.set(name, next);
    this.onChange?.(name, next, previous);
  }

  /** A component's current report. */
  get(name: string): ComponentHealth | undefined {
    return this.components.get(name);
  }

  /** Records this process's runtime session, shown in `/health`. */
  setSession(session: RuntimeSession): void {
    this.session = session;
  }

  /** Reports the state lock in `/health` from now on (leader election runs). */
  setLock(status: () => LockStatus): void {
    this.lock = status;
  }

  /** Records the current (`to` absent) or last blind period, epoch ms (`unwatched` in the report). */
  setUnwatched(period: { from: number; to?: number; reason: string }): void {
    this.unwatched = { ...period };
  }

  /** Records which providers are kept and which are inactive. */
  setProviders(kept: readonly string[], inactive: readonly string[]): void {
    this.providers = { kept: [...kept], inactive: [...inactive] };
  }

  /** Records the kinds not watched and why. */
  setCoverage(kinds: readonly { kind: string; reason: CoverageReason }[]): void {
    this.coverageKinds = [...kinds];
  }

  /** True when every required component is ok (readiness, spec 4.1); optional ones never fail it. */
  ready(): boolean {
    let any = false;
    for (const c of this.components.values()) {
      if (!c.required) continue;
      any = true;
      if (c.state !== "ok") return false;
    }
    return any;
  }

  /** The `/health` body. */
  report(): HealthReport {
    const components: HealthReport["components"] = {};
    const reasons = new Set<HealthReason>();
    let failed = false;
    let starting = false;
    let degraded = false;
    for (const [name, c] of [...this.components].sort(([a], [b]) => a.localeCompare(b))) {
      components[name] = { state: c.state, required: c.required, ...(c.reason ? { reason: c.reason } : {}) };
      if (c.state !== "ok" && c.reason) reasons.add(c.reason);
      if (c.state === "failed" && c.required) failed = true;
      else if (c.state === "pending" && c.required) starting = true;
      else if (c.state !== "ok") degraded = true;
    }
    const counts: Partial<Record<CoverageReason, number>> = {};
    for (const k of this.coverageKinds) counts[k.reason] = (counts[k.reason] ?? 0) + 1;
    return {
      status: failed ? "failed" : starting ? "starting" : degraded ? "degraded" : "ok",
      stateLock: this.lock ? (this.lock().leading ? "held" : "waiting") : "not_used",
      ...(this.lock ? { lock: lockView(this.lock()) } : {}),
      ...(this.session ? { session: this.session } : {}),
      ready: this.ready(),
      components,
      reasons: [...reasons].sort().slice(0, 20),
      coverage: {
        kinds: this.coverageKinds.slice(0, COVERAGE_LIST_LIMIT),
        reasons: counts,
        truncated: Math.max(0, this.coverageKinds.length - COVERAGE_LIST_LIMIT),
      },
      providers: this.providers,
      ...(this.unwatched ? { unwatched: unwatchedView(this.unwatched, this.now()) } : {}),
    };
  }
}

function unwatchedView(period: { from: number; to?: number; reason: string }, now: number) {
  return {
    from: new Date(period.from).toISOString(),
    ...(period.to !== undefined ? { to: new Date(period.to).toISOString() } : {}),
    seconds: Math.round(((period.to ?? now) - period.from) / 1000),
    reason: period.reason,
  };
}

/** The runtime session of `/health` (spec 8: POD_UID and NODE_NAME are recorded in it). */
export interface RuntimeSession {
  readonly pod: string;
  readonly podUid?: string;
  readonly node?: string;
  /** RFC 3339. */
  readonly startedAt: string;
  readonly version: string;
}

function lockView(l: LockStatus): NonNullable<HealthReport["lock"]> {
  return {
    lease: `${l.namespace}/${l.name}`,
    identity: l.identity,
    ...(l.holder ? { holder: l.holder } : {}),
    ...(l.term !== undefined ? { term: l.term } : {}),
    ...(l.renewedAt !== undefined ? { renewedAt: new Date(l.renewedAt).toISOString() } : {}),
  };
}
