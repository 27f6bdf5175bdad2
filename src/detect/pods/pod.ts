import type { Finding } from "../../model/finding.ts";
import { condition, finding } from "../build.ts";
import { describeExit, lastLine, type PodContext } from "./context.ts";

/** How long past its grace period a deleting pod may stay before it is stuck, ms. */
const STUCK_TERMINATING_MS = 5 * 60_000;

/**
 * A pod stuck terminating: still there 5 minutes after its grace period ended. The kubelet finishes a
 * deletion, so the time counts only from when the pod's node was Ready (`nodeReadyAt`, epoch ms; 0 when
 * unknown): a pod deleted while its node was down is not stuck until its node is back and does nothing.
 */
export function terminating(ctx: PodContext, nodeReadyAt: number): Finding | undefined {
  const { pod, now, time } = ctx;
  const deadline = Math.max(
    time.time(pod.metadata.deletionTimestamp) + (pod.metadata.deletionGracePeriodSeconds ?? 0) * 1000,
    nodeReadyAt,
  );
  if (time.before(deadline + STUCK_TERMINATING_MS)) return undefined;
  const finalizers = (pod.metadata.finalizers ?? []).join(", ");
  return finding({
    reason: "PodStuckTerminating",
    object: ctx.ref,
    summary: `pod ${ctx.name} has been terminating since ${pod.metadata.deletionTimestamp}${finalizers ? `; finalizers: ${finalizers}` : ""}`,
    evidence: [
      ["deletion requested", pod.metadata.deletionTimestamp],
      ["finalizers", finalizers],
      ["node", ctx.nodeName],
    ],
    since: deadline,
    now,
    ...(ctx.nodeName ? { nodeName: ctx.nodeName } : {}),
  });
}

/** A pod the kubelet failed as a whole: evicted, preempted, rejected at admission. */
export function podFailure(ctx: PodContext): Finding | undefined {
  const { pod, now } = ctx;
  const reason: string = pod.status?.reason ?? "";
  const message: string = pod.status?.message ?? "";
  const preempted = condition(pod, "DisruptionTarget")?.reason === "PreemptionByScheduler" || reason === "Preempting";
  if (pod.status?.phase !== "Failed" && !preempted) return undefined;
  const since = ctx.time.time(pod.status?.startTime ?? pod.metadata?.creationTimestamp);
  const common = { object: ctx.ref, since, now, ...(ctx.nodeName ? { nodeName: ctx.nodeName } : {}) };
  const evidence: [string, unknown][] = [
    ["node", ctx.nodeName],
    ["reason", reason],
    ["message", message],
  ];
  if (reason === "Evicted")
    return finding({
      ...common,
      reason: "PodEvicted",
      summary: `pod ${ctx.name} was evicted from ${ctx.nodeName ?? "its node"}: ${message || "no message"}`,
      evidence,
    });
  if (preempted)
    return finding({
      ...common,
      reason: "PodPreempted",
      summary: `pod ${ctx.name} was preempted on ${ctx.nodeName ?? "its node"}`,
      evidence,
    });
  if (/^OutOf/.test(reason) || reason === "NodeAffinity" || reason === "NodeShutdown")
    return finding({
      ...common,
      reason: "PodAdmissionRejected",
      summary: `pod ${ctx.name} was rejected by the kubelet on ${ctx.nodeName ?? "its node"}: ${reason} — ${message}`,
      evidence,
    });
  if (reason === "UnexpectedAdmissionError")
    return finding({
      ...common,
      reason: "UnexpectedAdmissionError",
      summary: `pod ${ctx.name} could not be admitted on ${ctx.nodeName ?? "its node"}: ${message}`,
      evidence,
    });
  return undefined;
}

/** Init containers that fail: the pod is stuck in init. */
export function initContainers(ctx: PodContext): Finding[] {
  const { pod, now } = ctx;
  if (condition(pod, "Initialized")?.status !== "False") return [];
  const out: Finding[] = [];
  for (const s of pod.status?.initContainerStatuses ?? []) {
    const last = s.state?.terminated ?? s.lastState?.terminated;
    const failing = s.state?.waiting?.reason === "CrashLoopBackOff" || (last && last.exitCode !== 0);
    if (!failing) continue;
    const output = last?.message ? `: "${lastLine(last.message)}"` : "";
    out.push(
      finding({
        reason: "InitContainerFailed",
        object: ctx.ref,
        part: s.name,
        container: `${s.name} (init)`,
        summary: `pod ${ctx.name} is stuck in init: ${s.name} exit ${last?.exitCode ?? "?"} after ${s.restartCount ?? 0} tries${output}`,
        evidence: [
          ["container", `${s.name} (init)`],
          ["exit code", last ? describeExit(last) : undefined],
          ["restarts", s.restartCount],
          ["last output", last?.message ? lastLine(last.message) : undefined],
          ["image", s.image],
        ],
        since: ctx.time.time(pod.status?.startTime),
        now,
        ...(ctx.nodeName ? { nodeName: ctx.nodeName } : {}),
        crashedInstance: s.state?.terminated ? "current" : "previous",
      }),
    );
  }
  return out;
}
