import type { Tier } from "../model/severity.ts";

/** One reason mon can report: its kind, built-in tier (spec 3.2; failure-catalogue tiers) and a description. */
export interface ReasonEntry {
  readonly reason: string;
  readonly kind: "Pod" | "Node";
  readonly tier: Tier;
  /** The page rule that can lift it to critical, when one applies. */
  readonly pageRule?: "ClusterCriticalDown";
  readonly description: string;
}

/**
 * The reasons detected by this release, the source of truth for tiers (spec 1.12; failure-catalogue 1.A, 1.C).
 * Detectors take their tier from here; nothing else names a tier for a reason.
 */
export const CATALOGUE = {
  CrashLoopBackOff: { reason: "CrashLoopBackOff", kind: "Pod", tier: "medium", description: "A container keeps exiting and the kubelet backs off restarting it." },
  OOMKilled: { reason: "OOMKilled", kind: "Pod", tier: "medium", description: "A container was killed for exceeding its memory limit (exit 137)." },
  ImagePullBackOff: { reason: "ImagePullBackOff", kind: "Pod", tier: "medium", description: "The image cannot be pulled (ErrImagePull, then ImagePullBackOff): wrong name or tag, no access, or registry unreachable." },
  CreateContainerConfigError: { reason: "CreateContainerConfigError", kind: "Pod", tier: "medium", description: "The container cannot be configured: a referenced Secret, ConfigMap or key is missing, or the security context is invalid." },
  FailedScheduling: { reason: "FailedScheduling", kind: "Pod", tier: "medium", description: "The pod is Pending because the scheduler finds no node for it (the scheduler's message says why)." },
  PodNodeLost: { reason: "PodNodeLost", kind: "Pod", tier: "normal", description: "The pod went down with its node; reported under the node's incident." },
  NodeNotReady: { reason: "NodeNotReady", kind: "Node", tier: "high", pageRule: "ClusterCriticalDown", description: "The node's Ready condition is False: the kubelet reports it cannot run pods." },
  NodeLost: { reason: "NodeLost", kind: "Node", tier: "high", pageRule: "ClusterCriticalDown", description: "The node's Ready condition is Unknown: the kubelet stopped posting status (node down or unreachable)." },
} as const satisfies Record<string, ReasonEntry>;

/** A reason name of the catalogue. */
export type Reason = keyof typeof CATALOGUE;

/** Minutes a node must stay down before page rule P3 (cluster-critical component down) pages (failure-catalogue 0.2). */
export const NODE_PAGE_HOLD_MS = 5 * 60_000;
