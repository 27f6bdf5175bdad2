import type { ObjectRef } from "./object-ref.ts";
import type { Tier } from "./severity.ts";

/** One labelled piece of evidence, in the order an engineer reads it (container, exit code, message, ...). */
export interface Evidence {
  readonly label: string;
  readonly value: string;
}

/**
 * One observed failure (spec 2.6). Produced by `detect/`, pure data.
 * `key` identifies the failure across passes: `reason/Kind/namespace/name[/container]`
 * (failure-catalogue 0.3), so the same failure seen again is not news.
 */
export interface Finding {
  readonly key: string;
  readonly reason: string;
  readonly object: ObjectRef;
  readonly container?: string;
  /** Built-in tier of the reason (catalogue), before page rules. */
  readonly tier: Tier;
  /** True when a page rule of spec 3.2 matches this finding now. */
  readonly pageRule?: string;
  /** One line: what is wrong, in the engineer's words. */
  readonly summary: string;
  readonly evidence: readonly Evidence[];
  /** Node the object runs on (pods) or is (nodes); used by correlation. */
  readonly nodeName?: string;
  /** Epoch ms when the condition started, from the object's own timestamps when it has them. */
  readonly since: number;
  /** Epoch ms at which this finding should be looked at again even without a cluster change (a page hold). */
  readonly recheckAt?: number;
  /**
   * Epoch ms when the condition will have held long enough to open (the reason's hold, failure-catalogue
   * 0.3). A finding with `opensAt` later than now is not yet open: the pass skips it and wakes up then.
   */
  readonly opensAt?: number;
  /** The hold this finding's reason has (ms), whether or not it has passed: young-node grace extends it. */
  readonly holdMs?: number;
  /**
   * It restates what the pods behind it show (a workload without available replica, a rollout past its
   * deadline): never news once their cause was told, and recovery traffic while that cause recovers.
   */
  readonly symptom?: boolean;
  /**
   * Its hold is a start in progress (pods starting, an EndpointSlice catching up: recovery is quiet), not a
   * wait to confirm a failure: it holds back even a finding already told, which other holds do not.
   */
  readonly starting?: boolean;
  /**
   * A node lost together with most of the cluster's nodes (a heartbeat gap, issue 53): what stopped is the
   * control plane or the network to it, not this node. Its hold is the gap's, and it is told as one with them.
   */
  readonly clusterWide?: boolean;
  /** For a root cause (a missing Secret, ConfigMap, ServiceAccount): the objects whose failures it explains (failure-catalogue R4). */
  readonly explains?: readonly ObjectRef[];
  /** A symptom of other objects (a Service of its pods, failure-catalogue R7): it joins the incident of the first of them that has a finding. */
  readonly joins?: readonly ObjectRef[];
  /**
   * Which instance of its container printed what explains it (a crash): `current` while the container has just
   * ended (its state is terminated, not restarted yet), `previous` once the kubelet backs off or runs it again.
   * A kubelet keeps one dead instance per container, so the instance before a just-ended one is often gone
   * (issue 50, seen on a real kubelet).
   */
  readonly crashedInstance?: "current" | "previous";
}

/**
 * A symptom of other objects (rule "cause before symptom"): it joins their incident (a Service of its pods) or
 * restates what its pods show (`symptom`).
 */
export function isSymptom(f: Pick<Finding, "joins" | "symptom">): boolean {
  return f.joins !== undefined || f.symptom === true;
}

/** The findings that are not symptoms of the others, or all of them when every one is a symptom. */
export function causesOf<F extends Pick<Finding, "joins" | "symptom">>(findings: readonly F[]): readonly F[] {
  const causes = findings.filter((f) => !isSymptom(f));
  return causes.length > 0 ? causes : findings;
}

/**
 * The node reasons that say a node is down — not ready, lost, without pod network: every pod on it counts as
 * failing (its impact), and every pod finding that began since is its doing (failure-catalogue R1, R3).
 */
export const NODE_DOWN_REASONS: ReadonlySet<string> = new Set(["NodeNotReady", "NodeLost", "NodeNetworkUnavailable"]);

/**
 * How far before a node went down a pod finding may have begun and still be that node's doing, ms
 * (failure-catalogue R1): a pod failing longer before keeps its own root, its node lost or not.
 */
export const NODE_DOWN_SLACK_MS = 2 * 60_000;

/**
 * Failures with evidence of their own, which no node state explains (issue 52 item 5): an image that does not
 * exist, a missing Secret or ConfigMap, a container the runtime cannot create from its spec. A pod showing one
 * when its node went down keeps it, however shortly before.
 */
export const OWN_EVIDENCE_REASONS: ReadonlySet<string> = new Set([
  "ImagePullBackOff",
  "InvalidImageName",
  "ImageUnavailable",
  "CreateContainerConfigError",
  "CreateContainerError",
  "SecretMissing",
  "ConfigMapMissing",
  "ServiceAccountMissing",
]);

/** Kinds whose own findings are about their pods (a workload with no available replica). */
export const WORKLOAD_KINDS: ReadonlySet<string> = new Set([
  "Deployment",
  "StatefulSet",
  "DaemonSet",
  "ReplicaSet",
  "Job",
]);

/**
 * How much a finding explains (rule "the incident is named by its most explanatory finding"): 0 a cause that
 * explains others (a missing ConfigMap), 1 what happens to a pod, container or node (a crash with its exit
 * code), 2 what a workload shows of its pods (no available replica), 3 a symptom of other objects (a Service
 * without ready endpoints).
 */
export function explanatoryDepth(f: Pick<Finding, "explains" | "joins" | "object">): 0 | 1 | 2 | 3 {
  if (f.explains) return 0;
  if (f.joins) return 3;
  return WORKLOAD_KINDS.has(f.object.kind) ? 2 : 1;
}

/**
 * The pods `findings` are about, `namespace/name`, sorted: each finding's own pod and the pods a cause explains
 * (a missing Secret's, which cannot start without it). What "N pods affected" counts (issue 52 item 12).
 */
export function affectedPods(findings: readonly Pick<Finding, "object" | "explains">[]): string[] {
  const pods = new Set<string>();
  for (const f of findings)
    for (const ref of [f.object, ...(f.explains ?? [])])
      if (ref.kind === "Pod") pods.add(`${ref.namespace}/${ref.name}`);
  return [...pods].sort();
}
