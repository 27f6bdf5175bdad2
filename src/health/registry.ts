/** Component state values (spec 3.5 leaves them open; these four are mon's). */
export type ComponentState = "ok" | "pending" | "degraded" | "failed";

/** Health reasons of spec 7.3 used by this release (a closed list; anything else is reported as component_failed). */
export type HealthReason =
  | "component_failed"
  | "cache_sync_pending"
  | "cache_sync_timeout"
  | "permission_denied"
  | "api_unavailable"
  | "watcher_failed"
  | "provider_unavailable"
  | "provider_rejected"
  | "provider_rate_limited"
  | "shutdown";

/** One component's report. `required` components decide readiness; optional ones only degrade. */
export interface ComponentHealth {
  readonly state: ComponentState;
  readonly reason?: HealthReason;
  readonly required: boolean;
  /** Epoch ms of the last change. */
  readonly since: number;
}

/** The `/health` body (spec 2.6, 4.1): overall status, state lock, components, bounded degradation reasons, coverage. */
export interface HealthReport {
  status: "ok" | "degraded" | "failed" | "starting";
  stateLock: "held" | "not_used";
  ready: boolean;
  components: Record<string, { state: ComponentState; reason?: HealthReason; required: boolean }>;
  reasons: HealthReason[];
  coverage: { kinds: { kind: string; reason: string }[]; reasons: Record<string, number> };
  /** The providers that receive messages and those configured but inactive in this edition (spec 2.1 app.communityProvider). */
  providers: { kept: string[]; inactive: string[] };
}

/** The component registry (health/): each component reports `{state, reason}`; the server reads the summary. */
export class HealthRegistry {
  private readonly components = new Map<string, ComponentHealth>();
  private providers: { kept: string[]; inactive: string[] } = { kept: [], inactive: [] };

  constructor(private readonly now: () => number) {}

  /** Records a component's state; a change of state or reason resets `since`. */
  set(name: string, state: ComponentState, options: { reason?: HealthReason; required?: boolean } = {}): void {
    const previous = this.components.get(name);
    const required = options.required ?? previous?.required ?? false;
    if (previous && previous.state === state && previous.reason === options.reason && previous.required === required) return;
    this.components.set(name, { state, required, since: this.now(), ...(options.reason ? { reason: options.reason } : {}) });
  }

  /** Records which providers are kept and which are inactive. */
  setProviders(kept: readonly string[], inactive: readonly string[]): void {
    this.providers = { kept: [...kept], inactive: [...inactive] };
  }

  /** True when every required component is ok (readiness, spec 4.1). */
  ready(): boolean {
    let any = false;
    for (const c of this.components.values()) {
      if (!c.required) continue;
      any = true;
      if (c.state !== "ok") return false;
    }
    return any;
  }

  /** The `/health` body. Coverage lists kinds not watched, cut at 50 (spec 2.6). */
  report(): HealthReport {
    const components: HealthReport["components"] = {};
    const reasons = new Set<HealthReason>();
    let worst: HealthReport["status"] = "ok";
    const notWatched: { kind: string; reason: string }[] = [];
    for (const [name, c] of [...this.components].sort(([a], [b]) => a.localeCompare(b))) {
      components[name] = { state: c.state, required: c.required, ...(c.reason ? { reason: c.reason } : {}) };
      if (c.reason && c.state !== "ok") reasons.add(c.reason);
      if (c.state === "failed" && c.required) worst = "failed";
      else if (c.state === "pending" && worst === "ok") worst = "starting";
      else if (c.state !== "ok" && worst !== "failed") worst = worst === "starting" ? "starting" : "degraded";
      if (name.startsWith("informer-") && c.state === "failed" && c.reason === "permission_denied") notWatched.push({ kind: name.slice(9), reason: "permission_denied" });
    }
    const counts: Record<string, number> = {};
    for (const k of notWatched) counts[k.reason] = (counts[k.reason] ?? 0) + 1;
    return { status: worst, stateLock: "not_used", ready: this.ready(), components, reasons: [...reasons].sort().slice(0, 20), coverage: { kinds: notWatched.slice(0, 50), reasons: counts }, providers: this.providers };
  }
}
