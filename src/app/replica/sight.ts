import type { HealthRegistry } from "../../health/registry.ts";
import type { Message } from "../../model/message.ts";
import { renderBlindNotice } from "../../notify/notice.ts";
import type { Cancel, Clock } from "../../runtime/clock.ts";

/** How long mon may not see something it saw before providers hear of it, ms: 5 minutes. */
export const BLIND_NOTICE_MS = 5 * 60_000;
/** How often what mon sees is checked, ms. */
const CHECK_MS = 30_000;

/** What each sight-giving component lets mon see, as a notice names it. */
const SIGHT: Readonly<Record<string, string>> = {
  caches: "the cluster's objects (its required watches)",
  "kubelet-stats": "the kubelets' statistics (node and pod memory, disk)",
  "metrics-api": "the metrics API",
  discovery: "the API's resource list",
};

/** The sight watch of the leader's work (issue 32). */
export interface SightWatch {
  start(): void;
  stop(): void;
  /** Checks now (a test steps the clock; the timer calls it every 30 s). */
  check(): void;
  /**
   * `key` is seen again now (the required caches synced again): when its blind spot was told, the thread is
   * resolved at once and true is returned; false when nothing was told.
   */
  seesAgain(key: string, now: number): boolean;
}

/**
 * Tells the providers when mon stops seeing something it was seeing — the cluster's required watches (a
 * required kind forbidden, a watch that cannot recover), a group's informers (an optional kind forbidden or
 * failing), the kubelets' statistics, the metrics API, discovery —
 * once it has not seen it for BLIND_NOTICE_MS, and again, in the same thread, when it sees it again (a monitor
 * that goes blind must not stay silent). Something never seen is not told: `/health` names it from the start.
 * `send` queues a notice; `silent` (app.disableStartupMessage) sends nothing.
 */
export function createSightWatch(deps: {
  health: HealthRegistry;
  clock: Clock;
  cluster: string;
  send: (message: Message) => void;
  silent: boolean;
}): SightWatch {
  const { health, clock } = deps;
  const seen = new Set<string>();
  const blindSince = new Map<string, { from: number; reason: string }>();
  const told = new Map<string, { from: number; reason: string; what: string }>();
  let timer: Cancel | undefined;
  const tell = (message: Message) => {
    if (!deps.silent) deps.send(message);
  };
  const check = () => {
    const now = clock.now();
    const report = health.report();
    const sights = new Map<string, { ok: boolean; reason: string; what: string; from?: number }>();
    // The required watches: blind from their last data (the health's unwatched period, set only after a sync).
    const unwatched = report.unwatched && report.unwatched.to === undefined ? report.unwatched : undefined;
    sights.set("caches", {
      ok: !unwatched,
      reason: unwatched?.reason ?? "ok",
      what: SIGHT.caches ?? "the cluster's objects",
      ...(unwatched ? { from: Date.parse(unwatched.from) } : {}),
    });
    if (unwatched) seen.add("caches");
    // While the API cannot be watched at all, what else fails is its consequence: one notice, not ten.
    if (!unwatched) {
      const groups: string[] = [];
      let reason = "ok";
      let groupsFrom = now;
      for (const [name, c] of Object.entries(report.components)) {
        const what = SIGHT[name];
        // Blind since the component's last change (the registry keeps when it left ok).
        const from = health.get(name)?.since;
        if (what && name !== "caches")
          sights.set(name, {
            ok: c.state === "ok",
            reason: c.reason ?? c.state,
            what,
            ...(from !== undefined ? { from } : {}),
          });
        if (name.startsWith("informers-") && c.state !== "ok" && c.state !== "pending") {
          groups.push(name.slice("informers-".length));
          reason = c.reason ?? c.state;
          groupsFrom = Math.min(groupsFrom, from ?? now);
        }
      }
      sights.set("informers", {
        ok: groups.length === 0,
        reason,
        from: groupsFrom,
        what: `the objects of the ${groups.sort().join(", ")} API group${groups.length === 1 ? "" : "s"}`,
      });
    } else for (const key of [...blindSince.keys()]) if (key !== "caches") blindSince.delete(key);
    for (const [key, sight] of sights) {
      if (sight.ok) {
        seen.add(key);
        blindSince.delete(key);
        const open = told.get(key);
        if (open) {
          told.delete(key);
          tell(
            renderBlindNotice(
              deps.cluster,
              { key, what: open.what, from: open.from, reason: open.reason, to: now },
              now,
            ),
          );
        }
        continue;
      }
      if (!seen.has(key)) continue;
      const since = blindSince.get(key) ?? { from: sight.from ?? now, reason: sight.reason };
      blindSince.set(key, since);
      if (!told.has(key) && now - since.from >= BLIND_NOTICE_MS) {
        told.set(key, { ...since, what: sight.what });
        tell(renderBlindNotice(deps.cluster, { key, what: sight.what, from: since.from, reason: since.reason }, now));
      }
    }
  };
  const tick = () => {
    check();
    timer = clock.setTimer(tick, CHECK_MS);
  };
  return {
    start() {
      // What is seen at the start counts at once: a blind spot right after it is still a blind spot.
      if (!timer) tick();
    },
    stop() {
      timer?.();
      timer = undefined;
    },
    check,
    seesAgain(key, now) {
      const open = told.get(key);
      seen.add(key);
      blindSince.delete(key);
      if (!open) return false;
      told.delete(key);
      tell(
        renderBlindNotice(deps.cluster, { key, what: open.what, from: open.from, reason: open.reason, to: now }, now),
      );
      return true;
    },
  };
}
