import type { Tier } from "../model/severity.ts";

/** Detector families, one file each under `detect/`. */
export type Family = "pods" | "workloads" | "nodes" | "storage" | "network" | "config" | "events" | "controlPlane" | "probes";

/** One reason mon reports: its kind, family, built-in tier (spec 3.2), hold, page rule and what it means. */
export interface ReasonEntry {
  readonly reason: string;
  readonly kind: string;
  readonly family: Family;
  readonly tier: Tier;
  /** Seconds the condition must hold before the finding opens (failure-catalogue 0.3); 0 = at once. */
  readonly holdSeconds: number;
  /** The page rule that can lift it to critical (spec 3.2). */
  readonly pageRule?: "ClusterCriticalDown" | "UserEntryLostBackends" | "LastReplicaDown";
  /** What resolves it, in one line. */
  readonly resolves: string;
  readonly description: string;
}

const e = (reason: string, kind: string, family: Family, tier: Tier, holdSeconds: number, description: string, resolves: string, pageRule?: ReasonEntry["pageRule"]): ReasonEntry =>
  ({ reason, kind, family, tier, holdSeconds, description, resolves, ...(pageRule ? { pageRule } : {}) });

/**
 * Every reason of this release: the source of truth for tiers and holds (spec 1.12; failure-catalogue 1.A–1.D).
 * docs/reasons.md is generated from it (scripts/gen-reasons.ts); detectors take tier and hold from here.
 */
export const REASONS: readonly ReasonEntry[] = [
  e("CrashLoopBackOff", "Pod", "pods", "medium", 0, "A container keeps exiting and the kubelet backs off restarting it; opens at once from 3 restarts, else after 3 minutes.", "the container runs again"),
  e("OOMKilled", "Pod", "pods", "medium", 0, "A container was killed for exceeding its memory limit (exit 137).", "the container runs without a new OOM kill"),
  e("ContainerExitedNonZero", "Pod", "pods", "warning", 0, "A container that will not be restarted (restartPolicy Never, Job pods) exited with a non-zero code; the exit class is named (1/2 app error, 126, 127, 137, 139, 143).", "the pod is replaced or its Job completes"),
  e("RunContainerError", "Pod", "pods", "medium", 0, "The runtime could not start the container (RunContainerError, StartError, ContainerCannotRun; e.g. executable not found).", "the container runs"),
  e("CreateContainerConfigError", "Pod", "pods", "medium", 60, "The container cannot be configured: a referenced Secret, ConfigMap or key is missing, or the security context is invalid.", "the waiting reason clears"),
  e("CreateContainerError", "Pod", "pods", "medium", 120, "The runtime refused to create the container (name reservation, bad mount, runtime fault).", "the container runs"),
  e("ImagePullBackOff", "Pod", "pods", "medium", 120, "The image cannot be pulled (ErrImagePull, then ImagePullBackOff: one finding): wrong name or tag, no access, or registry unreachable.", "the image is pulled"),
  e("InvalidImageName", "Pod", "pods", "medium", 0, "The image reference cannot be parsed; it never heals without a spec change.", "the pod template changes and the pod is replaced"),
  e("ImageUnavailable", "Pod", "pods", "medium", 0, "ErrImageNeverPull, ImageInspectError, RegistryUnavailable or SignatureValidationFailed: the node cannot use the image.", "the container runs"),
  e("ContainerStatusUnknown", "Pod", "pods", "warning", 0, "The runtime lost the container (the node restarted or was lost).", "the pod is replaced or deleted"),
  e("InitContainerFailed", "Pod", "pods", "medium", 120, "An init container keeps failing, so the pod never starts.", "the pod is initialized"),
  e("PodEvicted", "Pod", "pods", "warning", 0, "The kubelet evicted the pod (node pressure or its own ephemeral-storage limits); the kubelet's message names the cause.", "the pod is deleted"),
  e("PodPreempted", "Pod", "pods", "normal", 0, "The scheduler preempted the pod for a higher-priority one.", "quiet for an hour"),
  e("PodAdmissionRejected", "Pod", "pods", "warning", 0, "The kubelet rejected the pod (OutOfcpu, OutOfmemory, OutOfpods, NodeAffinity, NodeShutdown).", "the pod is deleted"),
  e("UnexpectedAdmissionError", "Pod", "pods", "medium", 0, "The pod could not be admitted on its node (device plugin or topology manager).", "a replacement pod runs"),
  e("PodNodeLost", "Pod", "pods", "normal", 0, "The pod went down with its node; folded into the node's incident.", "the node is Ready or the pod is gone"),
  e("FailedScheduling", "Pod", "pods", "medium", 180, "The pod is Pending because the scheduler finds no node for it; the scheduler's message says why.", "the pod is scheduled"),
  e("PodStuckTerminating", "Pod", "pods", "warning", 0, "The pod has been terminating for 5 minutes past its grace period (finalizers or a kill that failed).", "the pod is gone"),
  e("ReadinessProbeFailing", "Pod", "pods", "warning", 300, "The pod runs but has not been ready for 5 minutes while its owner expects it to serve.", "the pod is ready"),
  e("PodNeverReady", "Pod", "pods", "normal", 300, "A pod has run for 5 minutes without ever becoming ready while other pods of its controller serve: listed once in the low-priority digest, not announced (spec 1.6).", "the pod is ready or gone"),
  e("WorkloadUnavailable", "Deployment", "workloads", "high", 120, "A Deployment or StatefulSet that wants replicas has had none available for 2 minutes (rollouts and scale-ups pass through 0).", "a replica is available"),
  e("ProgressDeadlineExceeded", "Deployment", "workloads", "medium", 0, "A rollout has not progressed within its progress deadline.", "the rollout progresses"),
  e("ReplicaCreateFailed", "ReplicaSet", "workloads", "high", 0, "A controller cannot create pods (ReplicaFailure FailedCreate: quota, admission webhook, missing ServiceAccount).", "the condition clears"),
  e("JobFailed", "Job", "workloads", "warning", 0, "A Job failed (backoff limit, deadline, pod failure policy); the controller's message says which.", "the Job is deleted or a newer run of its CronJob succeeds"),
  e("CronJobFailing", "CronJob", "workloads", "warning", 0, "The newest run of a CronJob failed and no later run succeeded.", "a run succeeds"),
  e("PVCPending", "PersistentVolumeClaim", "storage", "medium", 300, "A claim has been Pending for 5 minutes (not while a WaitForFirstConsumer class waits for its first pod).", "the claim is Bound"),
  e("PVCLost", "PersistentVolumeClaim", "storage", "high", 0, "A claim is Lost: its PersistentVolume was deleted.", "the claim is rebound or deleted"),
  e("StorageClassMissing", "PersistentVolumeClaim", "storage", "medium", 0, "A Pending claim names a StorageClass that does not exist, or none when the cluster has no default class.", "the class exists or the claim is Bound"),
  e("PVFailed", "PersistentVolume", "storage", "warning", 0, "A PersistentVolume's reclaim failed (phase Failed).", "the volume leaves Failed"),
  e("VolumeAttachmentFailed", "VolumeAttachment", "storage", "medium", 0, "A volume cannot attach to (or detach from) its node; the CSI driver's error is quoted.", "the error clears"),
  e("VolumeUsageHigh", "PersistentVolumeClaim", "storage", "warning", 0, "A mounted volume is at least 90 % full (kubelet statistics).", "usage falls below 90 %"),
  e("VolumeFull", "PersistentVolumeClaim", "storage", "high", 0, "A mounted volume has less than 3 % of its capacity left (kubelet statistics).", "3 % or more is free"),
  e("VolumeInodesLow", "PersistentVolumeClaim", "storage", "warning", 0, "A mounted volume has less than 5 % of its inodes free (kubelet statistics).", "5 % or more inodes are free"),
  e("SecretMissing", "Secret", "config", "medium", 0, "A Secret (or one of its keys) that failing pods reference does not exist; it is the root of their incident.", "the Secret (and key) exists"),
  e("ConfigMapMissing", "ConfigMap", "config", "medium", 0, "A ConfigMap (or one of its keys) that failing pods reference does not exist; it is the root of their incident.", "the ConfigMap (and key) exists"),
  e("ServiceAccountMissing", "ServiceAccount", "config", "high", 0, "A controller cannot create pods because their ServiceAccount does not exist.", "the ServiceAccount exists"),
  e("FailedMount", "Pod", "events", "medium", 0, "A volume of the pod cannot be mounted (FailedMount or FailedMapVolume twice in 15 minutes); the kubelet's message names the volume.", "15 minutes without the event"),
  e("FailedAttachVolume", "Pod", "events", "medium", 0, "A volume cannot be attached for the pod (e.g. Multi-Attach: still attached to another node).", "15 minutes without the event"),
  e("FailedCreatePodSandBox", "Pod", "events", "medium", 0, "The pod's sandbox (network) cannot be created, 3 times in 15 minutes; the CNI error is quoted.", "15 minutes without the event"),
  e("NetworkNotReady", "Pod", "events", "medium", 0, "The node has no pod network yet (CNI not ready).", "15 minutes without the event"),
  e("NodeSystemOOM", "Node", "events", "warning", 0, "The node ran out of memory and the kernel killed a process (SystemOOM).", "15 minutes without the event"),
  e("NodeEvicting", "Node", "events", "warning", 0, "The kubelet is evicting pods to reclaim a resource (EvictionThresholdMet).", "15 minutes without the event"),
  e("NodeImageGCFailed", "Node", "events", "warning", 0, "The kubelet cannot free disk by removing images (ImageGCFailed, FreeDiskSpaceFailed).", "15 minutes without the event"),
  e("NodeRebooted", "Node", "events", "normal", 0, "The node rebooted (Rebooted).", "15 minutes without the event"),
  e("ServiceNoReadyEndpoints", "Service", "network", "high", 0, "A Service's selector matches pods but none is a ready endpoint; pages (UserEntryLostBackends) after 2 minutes when users reach it through a LoadBalancer, NodePort or Ingress and it is older than 10 minutes (mon's stand-in for 'had backends in the last 24 h').", "an endpoint is ready", "UserEntryLostBackends"),
  e("ServiceSelectorMatchesNothing", "Service", "network", "medium", 300, "A Service's selector matches no pod for 5 minutes.", "a pod matches"),
  e("IngressBackendMissing", "Ingress", "network", "medium", 0, "An Ingress routes to a Service (or port) that does not exist.", "the Service and port exist"),
  e("APIServerUnhealthy", "APIServer", "controlPlane", "high", 0, "The API server's /readyz reports failing checks (etcd, informer sync, …); pages after 1 minute.", "every /readyz check passes", "ClusterCriticalDown"),
  e("NetworkPolicyBlocksTraffic", "NetworkPolicy", "network", "warning", 0, "A namespace default-deny ingress NetworkPolicy admits no traffic to a Service whose pods are not ready; when it changed in the last 15 minutes it is named as their cause.", "another policy admits the traffic, or the pods are ready"),
  e("ClusterDNSUnavailable", "Deployment", "controlPlane", "high", 0, "Cluster DNS (kube-system/kube-dns, CoreDNS) has no ready endpoint or no available replica; pages after 1 minute.", "DNS has a ready endpoint", "ClusterCriticalDown"),
  e("ControlPlaneLeaderLost", "Lease", "controlPlane", "high", 0, "The kube-scheduler or kube-controller-manager leader Lease in kube-system has not been renewed for twice its duration, or has no holder.", "the Lease is renewed"),
  e("APIServerErrorRate", "APIServer", "controlPlane", "high", 0, "At least 5 % of 100 or more API requests in the last minute were answered with a 5xx (the API server's /metrics; watches and health endpoints left out).", "under 5 % in a later minute"),
  e("ClusterDNSErrors", "Deployment", "controlPlane", "medium", 0, "Cluster DNS answered at least 5 % of 50 or more queries in the last minute with SERVFAIL (CoreDNS metrics, port 9153).", "under 5 % in a later minute"),
  e("ClusterDNSUpstreamDown", "Deployment", "controlPlane", "high", 0, "CoreDNS found every upstream resolver down (its forward health check broke): names outside the cluster do not resolve.", "a minute without a break"),
  e("ActiveProbeFailure", "Probe", "probes", "high", 0, "An active probe (Pro, spec 2.3) failed failureThreshold rounds in a row: a configured http/tcp/dns target, a ClusterIP Service (autoServices) or an external dependency named in Pod environment values (autoDependencies; it becomes the root of the failing pods that call it).", "the probe succeeds once"),
  e("ActiveProbeSlow", "Probe", "probes", "warning", 0, "An http probe answered, but slower than its latencyWarningMs.", "an answer within latencyWarningMs"),
  e("ActiveProbeTooSlow", "Probe", "probes", "high", 0, "An http probe answered, but slower than its latencyCriticalMs.", "an answer within latencyCriticalMs"),
  e("NodeNotReady", "Node", "nodes", "high", 0, "The node's Ready condition is False: the kubelet reports it cannot run pods.", "the node is Ready", "ClusterCriticalDown"),
  e("NodeLost", "Node", "nodes", "high", 0, "The node's Ready condition is Unknown: the kubelet stopped posting status (node down or unreachable).", "the node is Ready or removed", "ClusterCriticalDown"),
  e("NodeMemoryPressure", "Node", "nodes", "warning", 120, "The kubelet reports MemoryPressure and may evict pods.", "the condition is False"),
  e("NodeDiskPressure", "Node", "nodes", "warning", 120, "The kubelet reports DiskPressure and may evict pods.", "the condition is False"),
  e("NodePIDPressure", "Node", "nodes", "warning", 120, "The kubelet reports PIDPressure.", "the condition is False"),
  e("NodeNetworkUnavailable", "Node", "nodes", "high", 0, "The node's network is not configured (NetworkUnavailable is True).", "the condition is False"),
];

/** A reason name of the catalogue. */
export type Reason = string;

/** The catalogue entry of a reason; throws Error naming it when a detector uses a reason the catalogue lacks. */
export function entry(reason: Reason): ReasonEntry {
  const found = BY_REASON.get(reason);
  if (!found) throw new Error(`reason ${reason} is not in the catalogue`);
  return found;
}

/** Minutes a node must stay down before page rule P3 (cluster-critical component down) pages (failure-catalogue 0.2). */
export const NODE_PAGE_HOLD_MS = 5 * 60_000;

const BY_REASON = new Map(REASONS.map((r) => [r.reason, r]));
