import type { Event } from "../../model/kube.ts";
import { parseTime } from "../evidence.ts";
import type { PodContext } from "./context.ts";

/** How long the kubelet's probe events about a container count as the cause of its restarts, ms (A13's window). */
const PROBE_KILL_WINDOW_MS = 30 * 60_000;

/** A container the kubelet restarted because its liveness or startup probe failed, and what the probe said. */
export interface ProbeKill {
  readonly probe: "liveness" | "startup";
  /** The prober's last failure for this container (`Liveness probe failed: HTTP probe failed …`), if recorded. */
  readonly message?: string;
  /** Kills in the window (the Killing events' count). */
  readonly kills: number;
}

/**
 * Whether the kubelet has been killing `container` of the pod for failing its liveness or startup probe
 * (failure-catalogue A13): a `Killing` event "Container <c> failed liveness probe, will be restarted" seen in the
 * last 30 minutes. Probe events are evidence whichever run of the container they concerned — the run they killed
 * is the previous one by the time its restart is seen (issue 40). Reads the pod's Events through the Inventory
 * and time through `ctx.time`, so an incremental pass knows when the answer can change. Pure.
 */
export function probeKill(ctx: PodContext, container: string): ProbeKill | undefined {
  const uid = ctx.pod.metadata?.uid;
  if (!uid) return undefined;
  const killing = new RegExp(`^Container ${escapeRegExp(container)} failed (liveness|startup) probe`);
  let probe: ProbeKill["probe"] | undefined;
  let kills = 0;
  let latest: { at: number; message: string } | undefined;
  const recent = (e: Event) => {
    const seen = parseTime(e.lastTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp, 0);
    return seen > 0 && ctx.time.before(seen + PROBE_KILL_WINDOW_MS) ? seen : undefined;
  };
  for (const e of ctx.inventory.eventsAbout(uid)) {
    if (e.reason !== "Killing") continue;
    const m = killing.exec(e.message ?? "");
    if (!m || recent(e) === undefined) continue;
    probe = m[1] as ProbeKill["probe"];
    kills += e.series?.count ?? e.count ?? 1;
  }
  if (!probe) return undefined;
  const prefix = probe === "liveness" ? "Liveness probe failed:" : "Startup probe failed:";
  for (const e of ctx.inventory.eventsAbout(uid)) {
    if (e.reason !== "Unhealthy" || !e.message?.startsWith(prefix)) continue;
    const path = e.involvedObject?.fieldPath;
    if (path && path !== `spec.containers{${container}}`) continue;
    const at = recent(e);
    if (at !== undefined && (!latest || at >= latest.at)) latest = { at, message: e.message };
  }
  return { probe, kills, ...(latest ? { message: latest.message } : {}) };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
