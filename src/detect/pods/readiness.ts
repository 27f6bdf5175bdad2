import type { Finding } from "../../model/finding.ts";
import { condition, finding } from "../build.ts";
import { parseTime } from "../evidence.ts";
import type { ContainerContext } from "./containers.ts";
import { servesTraffic } from "./context.ts";

/**
 * A running container that is not ready in a pod a workload expects to serve: never ready since it started
 * while its siblings serve (PodNeverReady, a cost worth knowing, not a failure happening now: the digest), or
 * its readiness probe failing. Not ready counts from when its node is Ready: the node lifecycle controller
 * marks the pods of a lost node not ready, and after the node is back their readiness is a start in progress.
 */
export function notReady({ ctx, s, base, common, started }: ContainerContext): Finding | undefined {
  const { pod } = ctx;
  const ready = condition(pod, "Ready");
  const running = s.state?.running;
  if (
    pod.status?.phase !== "Running" ||
    !running ||
    s.started === false ||
    s.ready !== false ||
    !servesTraffic(pod) ||
    ready?.status !== "False"
  )
    return undefined;
  const controller = (pod.metadata.ownerReferences ?? []).find((r) => r.controller);
  const others = controller ? ctx.readyOf(controller.uid) : 0;
  const neverReady = parseTime(ready.lastTransitionTime, 0) <= parseTime(running.startedAt, 0);
  const notReadySince = Math.max(parseTime(ready.lastTransitionTime, started), ctx.nodeReadyAt);
  if (controller && others > 0 && neverReady) {
    return finding({
      ...base,
      reason: "PodNeverReady",
      summary: `pod ${ctx.name} runs but has never been ready while ${others} other pod${others === 1 ? "" : "s"} of ${controller.kind} ${controller.name} serve`,
      evidence: [...common, ["ready siblings", others], ["message", ready.message]],
      since: notReadySince,
    });
  }
  return finding({
    ...base,
    reason: "ReadinessProbeFailing",
    summary: `pod ${ctx.name} runs but container ${s.name} has not been ready since ${ready.lastTransitionTime ?? "it started"}`,
    evidence: [...common, ["not ready since", ready.lastTransitionTime], ["message", ready.message]],
    since: notReadySince,
  });
}
