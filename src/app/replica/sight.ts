import type { HealthRegistry } from "../../health/registry.ts";
import type { Message } from "../../model/message.ts";
import { renderBlindNotice } from "../../notify/notice.ts";
import type { Cancel, Clock } from "../../runtime/clock.ts";

/**
 * How long mon may not see something it saw before providers hear of it, ms: one minute — told while it lasts
 * (issue 41), before a required component's failure ends the process (5 minutes, replica/health.ts).
 */
export const BLIND_NOTICE_MS = 60_000;
/** How often what mon sees is checked, ms: a blind minute is told within 10 s of its end. */
const CHECK_MS = 10_000;

/** A blind spot told to the providers and not closed yet: its thread's key, since when (epoch ms), why, what. */
export interface BlindThread {
  readonly key: string;
  readonly from: number;
  readonly reason: string;
  readonly what: string;
}

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
  /**
   * Stops watching what mon sees. A blind spot still told stays open when the threads are kept (`keep`: a state
   * file, whose next process closes it once it sees); otherwise its thread is closed now, saying mon stopped
   * while it could not see — no restart leaves a thread open.
   */
  stop(): void;
  /** Checks now (a test steps the clock; the timer calls it every 10 s). */
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
 * failing), the kubelets' statistics, the metrics API, discovery — once it has not seen it for
 * BLIND_NOTICE_MS, dated from when its data was due, and again, in the same thread, when it sees it again (a
 * monitor that goes blind must not stay silent). Something never seen is not told: `/health` names it from the
 * start. `restored` are the threads a previous process told and kept (a state file): each is closed once mon
 * sees what it names; `keep` is handed the open threads whenever they change (the state file keeps them).
 * `send` queues a notice; every edition and setting tells them (issue 41).
 */
export function createSightWatch(deps: {
  health: HealthRegistry;
  clock: Clock;
  cluster: string;
  send: (message: Message) => void;
  restored?: readonly BlindThread[];
  keep?: (open: readonly BlindThread[]) => boolean;
  /**
   * Whether what `key` names has data to show while it reports ok: the kubelets' statistics are seen once a
   * round has read a node (a round over no node is ok and shows nothing). True when absent.
   */
  shows?: (key: string) => boolean;
}): SightWatch {
  const { health, clock } = deps;
  const seen = new Set<string>();
  const blindSince = new Map<string, { from: number; reason: string; knownAt: number }>();
  const told = new Map<string, { from: number; reason: string; what: string; restarted?: boolean }>();
  // A thread the previous process told is open until what it names is seen again.
  for (const t of deps.restored ?? []) {
    told.set(t.key, { from: t.from, reason: t.reason, what: t.what, restarted: true });
    seen.add(t.key);
  }
  let timer: Cancel | undefined;
  let durable = false;
  const kept = () =>
    (durable =
      deps.keep?.([...told].map(([key, t]) => ({ key, from: t.from, reason: t.reason, what: t.what }))) ?? false);
  const tell = (message: Message) => {
    deps.send(message);
    kept();
  };
  const closing = (
    key: string,
    open: { from: number; reason: string; what: string; restarted?: boolean },
    now: number,
  ) =>
    renderBlindNotice(
      deps.cluster,
      {
        key,
        what: open.what,
        from: open.from,
        reason: open.reason,
        to: now,
        ...(open.restarted ? { restarted: true } : {}),
      },
      now,
    );
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
        if (deps.shows?.(key) ?? true) seen.add(key);
        blindSince.delete(key);
        const open = told.get(key);
        if (open) {
          told.delete(key);
          tell(closing(key, open, now));
        }
        continue;
      }
      if (!seen.has(key)) continue;
      const since = blindSince.get(key) ?? { from: sight.from ?? now, reason: sight.reason, knownAt: now };
      blindSince.set(key, since);
      // Dated from when data was due, but known for one check at least: a stalled watch found a minute late and
      // relisted at once is one notice after it ("could not watch from … to …"), not two.
      if (!told.has(key) && now - since.from >= BLIND_NOTICE_MS && now - since.knownAt >= CHECK_MS) {
        told.set(key, { from: since.from, reason: since.reason, what: sight.what });
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
      if (kept()) return;
      const now = clock.now();
      for (const [key, t] of told)
        deps.send(
          renderBlindNotice(
            deps.cluster,
            { key, what: t.what, from: t.from, reason: t.reason, to: now, stopped: true },
            now,
          ),
        );
      told.clear();
    },
    check,
    seesAgain(key, now) {
      const open = told.get(key);
      seen.add(key);
      blindSince.delete(key);
      if (!open) return false;
      told.delete(key);
      tell(closing(key, open, now));
      return true;
    },
  };
}
