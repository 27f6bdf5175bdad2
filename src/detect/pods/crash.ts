import type { Finding } from "../../model/finding.ts";
import type { ContainerStatus, ObjectLike, Pod, TerminatedState } from "../../model/kube.ts";
import { finding } from "../build.ts";
import { parseTime } from "../evidence.ts";
import { exitClass } from "../exit-codes.ts";
import type { TimeEdges } from "../incremental.ts";
import type { ContainerContext } from "./containers.ts";
import { probeKill } from "./probe-kills.ts";
import { containerSpec, describeExit, lastLine, type PodContext, RUN_ERRORS, willNotRestart } from "./context.ts";

/** How long after an OOM kill a running container is still told as OOM-killed, ms. */
const OOM_MEMORY_MS = 60 * 60_000;

/** An OOM kill: the container's last termination, or its previous one within the hour (spec 1.6 says what it cost). */
export function oomKilled({
  ctx,
  s,
  waiting,
  terminated,
  last,
  base,
  common,
  limit,
  restarts,
  started,
}: ContainerContext): Finding | undefined {
  const oom =
    terminated?.reason === "OOMKilled"
      ? terminated
      : last?.reason === "OOMKilled" && (waiting || ctx.time.before(parseTime(last.finishedAt, 0) + OOM_MEMORY_MS))
        ? last
        : undefined;
  if (!oom) return undefined;
  const looping = waiting?.reason === "CrashLoopBackOff" || (terminated?.reason === "OOMKilled" && restarts >= 1);
  // What it cost (spec 1.6): without a memory limit the node's memory ran out first.
  const cost = limit
    ? `memory limit ${limit}`
    : "the container has no memory limit, so the node ran out of memory first";
  return finding({
    ...base,
    reason: "OOMKilled",
    summary: `container ${s.name} of pod ${ctx.name} was OOM-killed (${cost}); ${restarts} restarts`,
    evidence: [
      ...common,
      ["exit code", describeExit(oom)],
      ["memory limit", limit ?? "none"],
      ["last termination", oom.finishedAt],
    ],
    crashedInstance: oom === terminated ? "current" : "previous",
    // Killed again and again (a restart loop): the failure began with the first kill, which the kubelet does not
    // keep, not with the last — an onset that moves with every kill would postpone every hold (issue 50).
    since: looping ? started : parseTime(oom.finishedAt, started),
  });
}

/**
 * A crash loop: CrashLoopBackOff, or between two crashes — the container has just exited, or runs again for a
 * moment: still crash-looping until its recovery is confirmed (rule 6: it stayed up longer than its last
 * back-off, at least 10 s). Opens at once from 3 restarts; a first crash gets 3 minutes to recover
 * (failure-catalogue A1).
 */
export function crashLoop({
  ctx,
  s,
  waiting,
  last,
  base,
  common,
  restarts,
  started,
}: ContainerContext): Finding | undefined {
  const between = crashLoopingBetweenCrashes(ctx.pod, s, ctx.time);
  if (waiting?.reason !== "CrashLoopBackOff" && !between) return undefined;
  const crash = waiting?.reason === "CrashLoopBackOff" ? last : between?.crash;
  const output = crash?.message ? `; last output: "${lastLine(crash.message)}"` : "";
  const cost = crashCost(ctx, s);
  // Killed by the kubelet for a failing probe: that is the cause, not the exit code's usual meaning.
  const killed = probeKill(ctx, s.name);
  const cause = killed
    ? `killed by the kubelet: its ${killed.probe} probe failed${killed.message ? ` (${killed.message})` : ""}`
    : undefined;
  return finding({
    ...base,
    reason: "CrashLoopBackOff",
    summary: `container ${s.name} of pod ${ctx.name} is crash-looping: ${cause ? `${cause}, exit ${crash ? describeExit(crash) : "unknown"}` : `exit ${crash ? describeExit(crash) : "unknown"}`}, ${restarts} restarts${output}${cost.length ? `; what it cost: ${cost.join("; ")}` : ""}`,
    evidence: [
      ...common,
      ["exit code", crash ? describeExit(crash) : undefined],
      ["exit class", cause ?? (crash ? exitClass(crash.exitCode) : undefined)],
      ["probe kills in 30 min", killed?.kills],
      ["last output", crash?.message ? lastLine(crash.message) : undefined],
      ["last termination", crash?.finishedAt],
      ["back-off", waiting?.message],
    ],
    since: started,
    holdMs: restarts >= 3 ? 0 : 180_000,
    // Just ended and not restarted yet: what it printed is the current instance's log.
    crashedInstance: crash !== undefined && crash === s.state?.terminated ? "current" : "previous",
    ...(between?.confirmedAt !== undefined ? { recheckAt: between.confirmedAt } : {}),
  });
}

/** The least time a restarted container must stay up before its crash loop counts as over, ms. */
const CRASH_RECOVERY_MIN_MS = 10_000;
/**
 * The most of the back-off before a new run that the run must outlast, ms: a run that stays up half a minute
 * after a 5-minute back-off is a steady one, and a user expects the resolve within a minute of it (issue 40).
 */
const CRASH_BACKOFF_TRUSTED_MS = 30_000;
/** The kubelet forgets a container's back-off after it ran this long: a longer run is a recovery whatever came before, ms. */
const CRASH_RESET_MS = 10 * 60_000;

/**
 * A container of a restarting pod caught between two crashes (rule "no flapping"): it has just exited
 * non-zero — its first crash included, before the kubelet backs off or counts a restart — or it runs again
 * after a non-zero exit and its recovery is not confirmed yet. Recovery is confirmed from what was observed,
 * whatever the back-off schedule: the new run has lasted twice as long as the run that crashed, longer than
 * the back-off before it (up to 30 s of it), and at least CRASH_RECOVERY_MIN_MS; a run of CRASH_RESET_MS always
 * confirms it.
 * A readiness probe saying ready confirms nothing: a container can pass it and crash a second later.
 * Returns the crash it is in and when the recovery would be confirmed; undefined when it is not crash-looping.
 */
function crashLoopingBetweenCrashes(
  pod: Pod,
  s: ContainerStatus,
  time: TimeEdges,
): { crash: TerminatedState; confirmedAt?: number } | undefined {
  if (willNotRestart(pod)) return undefined;
  const exited = s.state?.terminated;
  // A container that could not start (StartError) or that the runtime lost is told as such, not as a crash.
  if (
    exited &&
    exited.exitCode !== 0 &&
    !RUN_ERRORS.has(exited.reason ?? "") &&
    exited.reason !== "ContainerStatusUnknown"
  )
    return { crash: exited };
  if ((s.restartCount ?? 0) < 1) return undefined;
  const crash = s.lastState?.terminated;
  const running = s.state?.running;
  if (!running || !crash || crash.exitCode === 0) return undefined;
  const startedAt = time.time(running.startedAt);
  const finishedAt = parseTime(crash.finishedAt, startedAt);
  const backoff = Math.max(0, startedAt - finishedAt);
  const lastRun = Math.max(0, finishedAt - parseTime(crash.startedAt, finishedAt));
  const needed = Math.min(
    CRASH_RESET_MS,
    Math.max(2 * lastRun, Math.min(backoff, CRASH_BACKOFF_TRUSTED_MS), CRASH_RECOVERY_MIN_MS),
  );
  const confirmedAt = startedAt + needed;
  return time.before(confirmedAt) ? { crash, confirmedAt } : undefined;
}

/**
 * What a crash loop shows a risky setting cost (spec 1.6), never the setting on its own: without a readiness
 * probe, a Service selecting the pod kept sending it traffic between crashes; with a mutable tag (`latest` or
 * none), pods of the same controller run different images under one name.
 */
function crashCost(ctx: PodContext, s: ContainerStatus): string[] {
  const out: string[] = [];
  const { pod } = ctx;
  const spec = containerSpec(pod, s.name);
  if (spec && !spec.readinessProbe) {
    const service = selectingService(ctx);
    if (service)
      out.push(`no readiness probe, so service ${service.metadata.name} kept sending it traffic between crashes`);
  }
  const image = s.image ?? spec?.image ?? "";
  const tag = /^[^@]*?(?::([^/:@]+))?$/.exec(image)?.[1];
  const mutable = !image.includes("@") && (tag === undefined || tag === "latest");
  const owner = pod.metadata?.ownerReferences?.find((o) => o.controller)?.uid;
  if (mutable && owner && s.imageID) {
    // Pods of this controller running the same name under another image id.
    const others = ctx.podsRunning(owner, s.name, image) - ctx.podsRunning(owner, s.name, image, s.imageID);
    if (others > 0)
      out.push(
        `the mutable tag ${tag ?? "(none)"} of ${image} resolves to a different image in ${others} other pod${others === 1 ? "" : "s"}`,
      );
  }
  return out;
}

const SELECTING = new WeakMap<PodContext, ObjectLike | null>();

/** The first Service of the pod's namespace whose selector matches its labels, found once per pod and pass. */
function selectingService(ctx: PodContext): ObjectLike | undefined {
  const { pod, inventory } = ctx;
  const known = SELECTING.get(ctx);
  if (known !== undefined) return known ?? undefined;
  const labels = pod.metadata?.labels ?? {};
  const service = inventory.listIn("Service", pod.metadata?.namespace ?? "").find((svc) => {
    const selector = svc.spec?.selector as Record<string, string> | undefined;
    return selector && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);
  });
  SELECTING.set(ctx, service ?? null);
  return service;
}
