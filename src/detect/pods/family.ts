import { type Finding, NODE_DOWN_SLACK_MS, OWN_EVIDENCE_REASONS } from "../../model/finding.ts";
import type { InventoryChange, InventoryView } from "../../model/inventory.ts";
import type { Pod } from "../../model/kube.ts";
import { condition, finding, refOf } from "../build.ts";
import { podOfSupersededRun } from "../cronjob-runs.ts";
import { parseTime } from "../evidence.ts";
import { FINDING_RESULTS, isPartial, ObjectMemo, sortedByKey, TimeEdges } from "../incremental.ts";
import { readyCondition } from "../nodes.ts";
import { containers } from "./containers.ts";
import { lostCandidates } from "./lost-candidates.ts";
import type { PodContext } from "./context.ts";
import { PodCounts, type PodCountsView, passCounts } from "./counts.ts";
import { initContainers, podFailure, terminating } from "./pod.ts";

export { PodCounts, type PodCountsView } from "./counts.ts";

/**
 * The pod family (spec 1.2; failure-catalogue 1.A): every container waiting and terminated reason, init
 * containers, evicted / preempted / rejected pods, unschedulable Pending pods, pods stuck terminating, pods
 * that run but are not ready, and pods lost with their node. Each finding carries the evidence an engineer
 * acts on; holds come from the catalogue and are measured from the object's own timestamps. Pure.
 */
export function detectPods(inventory: InventoryView, now: number): Finding[] {
  const counts = passCounts(inventory);
  const out: Finding[] = [];
  for (const pod of inventory.list("Pod")) out.push(...detectPod(pod, inventory, new TimeEdges(now), counts));
  // One order for the full and the incremental family, whatever order the pods were listed in.
  return sortedByKey(out);
}

/**
 * The findings of one pod (the pod family for one object): what `detectPods` returns for it. Reads the
 * Inventory only through `inventory` and time only through `time`, so the incremental family
 * (`createIncrementalPods`) knows when the result can change. Pure.
 */
export function detectPod(pod: Pod, inventory: InventoryView, time: TimeEdges, counts: PodCountsView): Finding[] {
  if (pod.status?.phase === "Succeeded") return [];
  // A failed run of a CronJob that a later run made good is history, whatever its pods still show.
  if (podOfSupersededRun(inventory, pod)) return [];
  const now = time.now;
  const nodeName: string | undefined = pod.spec?.nodeName || undefined;
  const node = nodeName ? inventory.get("Node", undefined, nodeName) : undefined;
  const nodeReady = node ? readyCondition(node) : undefined;
  const ctx: PodContext = {
    pod,
    now,
    time,
    ref: refOf({ ...pod, kind: "Pod" }),
    name: `${pod.metadata.namespace}/${pod.metadata.name}`,
    nodeName,
    nodeReadyAt: nodeReady?.status === "True" ? parseTime(nodeReady.lastTransitionTime, 0) : 0,
    watchesSecrets: () => inventory.watches("Secret"),
    inventory,
    readyOf: counts.readyOf,
    podsRunning: counts.podsRunning,
  };
  if (node && nodeReady && nodeReady.status !== "True") {
    const downAt = time.time(nodeReady.lastTransitionTime);
    // What the pod showed when its node went silent is the kubelet's last word on it: a failure that began well
    // before (a crash loop from a rollout, a pull error, a finished pod) is still its own, neither the node's
    // doing nor over (issue 50). Judged at the moment the node went down: its status will not move until then.
    // One with evidence of its own (an image that does not exist) is its own however shortly before (issue 52).
    const own = ownFindings(pod, { ...ctx, now: downAt, time: new TimeEdges(downAt) }).filter(
      (f) =>
        f.since < downAt - NODE_DOWN_SLACK_MS ||
        (OWN_EVIDENCE_REASONS.has(f.reason) && f.since <= downAt) ||
        pod.status?.phase === "Failed",
    );
    if (own.length > 0 || pod.status?.phase === "Failed")
      return own.map((f) => ({
        ...f,
        evidence: [...f.evidence, { label: "node lost since", value: String(nodeReady.lastTransitionTime ?? "") }],
      }));
    return [
      finding({
        reason: "PodNodeLost",
        object: ctx.ref,
        summary: `pod ${ctx.name} went down with node ${nodeName}`,
        evidence: [
          ["node", nodeName],
          ["node not ready since", nodeReady.lastTransitionTime],
        ],
        since: time.time(nodeReady.lastTransitionTime),
        now,
        nodeName: nodeName ?? "",
      }),
    ];
  }
  return ownFindings(pod, ctx);
}

/** The findings of a pod from its own status, whatever its node: terminating, failed, unschedulable, containers. */
function ownFindings(pod: Pod, ctx: PodContext): Finding[] {
  const { time, now, inventory } = ctx;
  if (pod.metadata?.deletionTimestamp) {
    const stuck = terminating(ctx, ctx.nodeReadyAt);
    return stuck ? [stuck] : [];
  }
  const failedPod = podFailure(ctx);
  if (failedPod) return [failedPod];
  const unscheduled = condition(pod, "PodScheduled");
  if (pod.status?.phase === "Pending" && unscheduled?.status === "False" && unscheduled.reason === "Unschedulable") {
    // Pending only because every node it may run on is lost: that node's doing, and its incident's (issue 40).
    const waitsFor = lostCandidates(pod, inventory);
    return [
      finding({
        reason: "FailedScheduling",
        object: ctx.ref,
        summary: waitsFor.length
          ? `pod ${ctx.name} cannot be scheduled: the only node${waitsFor.length === 1 ? "" : "s"} it may run on (${waitsFor.join(", ")}) ${waitsFor.length === 1 ? "is" : "are"} lost`
          : `pod ${ctx.name} cannot be scheduled: ${unscheduled.message ?? "no node fits"}`,
        evidence: [
          ["scheduler", unscheduled.message],
          ["waits for", waitsFor.length ? waitsFor.join(", ") : undefined],
        ],
        since: time.time(unscheduled.lastTransitionTime),
        now,
        ...(waitsFor[0] ? { nodeName: waitsFor[0] } : {}),
      }),
    ];
  }
  return [...initContainers(ctx), ...containers(ctx)];
}

/**
 * The pod family, incremental (ARCHITECTURE.md "The pass"): a pod's findings are computed again only when
 * it changed, when what it read changed (its node, a ConfigMap or Secret it waits for, the Services of its
 * namespace, the pods of its controller), or when time reached an instant its result depends on. `noteChange`
 * takes every Inventory change (Inventory.subscribe); `detect` is the family's detector. Its result equals
 * `detectPods` on the same Inventory and time (incremental.test.ts). The counts of other pods are kept change
 * by change, counted once from the Inventory on the first pass.
 */
export function createIncrementalPods(): {
  detect: (inventory: InventoryView, now: number) => Finding[];
  noteChange: (change: InventoryChange, keysOf?: () => readonly string[]) => void;
  /** Pods evaluated in the last pass (the others were reused). */
  evaluated: () => number;
  /** The earliest instant after `now` a remembered pod's findings change with time alone (ObjectMemo.nextEdge). */
  nextEdge: (now: number) => number | undefined;
} {
  const memo = new ObjectMemo<Pod>({
    kind: "Pod",
    ...FINDING_RESULTS,
    localKeys: (pod) => (pod.spec?.nodeName ? [`obj:Node//${pod.spec.nodeName}`] : []),
    // A Node's change concerns the pods on it (the Inventory indexes them).
    reach: {
      kinds: ["Node"],
      objects: (change, inventory) =>
        [change.previous, change.next].flatMap((n) => (n ? inventory.podsOnNode(n.metadata?.name ?? "") : [])),
    },
  });
  let counts: PodCounts | undefined;
  return {
    noteChange(change, keysOf) {
      memo.noteChange(change, keysOf);
      if (change.kind === "Pod" && counts) counts.apply(change.previous as Pod, change.next as Pod);
    },
    detect(inventory, now) {
      // Some objects set aside (detect/isolate.ts): this pass evaluates every pod, and the memory waits.
      if (isPartial(inventory)) return detectPods(inventory, now);
      counts ??= PodCounts.of(inventory.list("Pod"));
      const known = counts;
      return memo.run(inventory, now, (pod, view, time) =>
        detectPod(pod, view, time, {
          readyOf: (uid) => {
            view.extra(`ctrl:${uid}`);
            return known.readyOf(uid);
          },
          podsRunning: (owner, container, image, imageId) => {
            view.extra(`ctrl:${owner}`);
            return known.podsRunning(owner, container, image, imageId);
          },
        }),
      );
    },
    evaluated: () => memo.evaluated,
    nextEdge: (now) => memo.nextEdge(now),
  };
}
