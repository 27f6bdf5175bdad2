import type { Tier } from "../model/severity.ts";

/** Detector families, one file each under `detect/`. */
export type Family =
  | "pods"
  | "workloads"
  | "nodes"
  | "storage"
  | "network"
  | "config"
  | "events"
  | "controlPlane"
  | "probes";

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

/** What the catalogue says of one reason (ReasonEntry without its name, the table's key). */
export type ReasonSpec = Omit<ReasonEntry, "reason">;

/**
 * Every reason of this release, keyed by name: the source of truth for tiers and holds (spec 1.12;
 * failure-catalogue 1.A–1.D). A closed table, so `Reason` is the union of its keys and every reason a detector
 * names is checked by the compiler. docs/reasons.md is generated from it (scripts/gen-reasons.ts); detectors
 * take tier and hold from here.
 */
export const REASON_SPECS = {
  CrashLoopBackOff: {
    kind: "Pod",
    family: "pods",
    tier: "medium",
    holdSeconds: 0,
    description:
      "A container keeps exiting and the kubelet backs off restarting it; opens at once from 3 restarts, else after 3 minutes.",
    resolves: "the container runs again",
  },
  OOMKilled: {
    kind: "Pod",
    family: "pods",
    tier: "medium",
    holdSeconds: 0,
    description: "A container was killed for exceeding its memory limit (exit 137).",
    resolves: "the container runs without a new OOM kill",
  },
  ContainerExitedNonZero: {
    kind: "Pod",
    family: "pods",
    tier: "warning",
    holdSeconds: 0,
    description:
      "A container that will not be restarted (restartPolicy Never, Job pods) exited with a non-zero code; the exit class is named (1/2 app error, 126, 127, 137, 139, 143).",
    resolves: "the pod is replaced or its Job completes",
  },
  RunContainerError: {
    kind: "Pod",
    family: "pods",
    tier: "medium",
    holdSeconds: 0,
    description:
      "The runtime could not start the container (RunContainerError, StartError, ContainerCannotRun; e.g. executable not found).",
    resolves: "the container runs",
  },
  CreateContainerConfigError: {
    kind: "Pod",
    family: "pods",
    tier: "medium",
    holdSeconds: 60,
    description:
      "The container cannot be configured: a referenced Secret, ConfigMap or key is missing, or the security context is invalid.",
    resolves: "the waiting reason clears",
  },
  CreateContainerError: {
    kind: "Pod",
    family: "pods",
    tier: "medium",
    holdSeconds: 120,
    description: "The runtime refused to create the container (name reservation, bad mount, runtime fault).",
    resolves: "the container runs",
  },
  ImagePullBackOff: {
    kind: "Pod",
    family: "pods",
    tier: "medium",
    holdSeconds: 120,
    description:
      "The image cannot be pulled (ErrImagePull, then ImagePullBackOff: one finding): wrong name or tag, no access, or registry unreachable.",
    resolves: "the image is pulled",
  },
  InvalidImageName: {
    kind: "Pod",
    family: "pods",
    tier: "medium",
    holdSeconds: 0,
    description: "The image reference cannot be parsed; it never heals without a spec change.",
    resolves: "the pod template changes and the pod is replaced",
  },
  ImageUnavailable: {
    kind: "Pod",
    family: "pods",
    tier: "medium",
    holdSeconds: 0,
    description:
      "ErrImageNeverPull, ImageInspectError, RegistryUnavailable or SignatureValidationFailed: the node cannot use the image.",
    resolves: "the container runs",
  },
  ContainerStatusUnknown: {
    kind: "Pod",
    family: "pods",
    tier: "warning",
    holdSeconds: 0,
    description: "The runtime lost the container (the node restarted or was lost).",
    resolves: "the pod is replaced or deleted",
  },
  InitContainerFailed: {
    kind: "Pod",
    family: "pods",
    tier: "medium",
    holdSeconds: 120,
    description: "An init container keeps failing, so the pod never starts.",
    resolves: "the pod is initialized",
  },
  PodEvicted: {
    kind: "Pod",
    family: "pods",
    tier: "warning",
    holdSeconds: 0,
    description:
      "The kubelet evicted the pod (node pressure or its own ephemeral-storage limits); the kubelet's message names the cause.",
    resolves: "the pod is deleted",
  },
  PodPreempted: {
    kind: "Pod",
    family: "pods",
    tier: "normal",
    holdSeconds: 0,
    description: "The scheduler preempted the pod for a higher-priority one.",
    resolves: "quiet for an hour",
  },
  PodAdmissionRejected: {
    kind: "Pod",
    family: "pods",
    tier: "warning",
    holdSeconds: 0,
    description: "The kubelet rejected the pod (OutOfcpu, OutOfmemory, OutOfpods, NodeAffinity, NodeShutdown).",
    resolves: "the pod is deleted",
  },
  UnexpectedAdmissionError: {
    kind: "Pod",
    family: "pods",
    tier: "medium",
    holdSeconds: 0,
    description: "The pod could not be admitted on its node (device plugin or topology manager).",
    resolves: "a replacement pod runs",
  },
  PodNodeLost: {
    kind: "Pod",
    family: "pods",
    tier: "normal",
    holdSeconds: 0,
    description: "The pod went down with its node; folded into the node's incident.",
    resolves: "the node is Ready or the pod is gone",
  },
  FailedScheduling: {
    kind: "Pod",
    family: "pods",
    tier: "medium",
    holdSeconds: 180,
    description: "The pod is Pending because the scheduler finds no node for it; the scheduler's message says why.",
    resolves: "the pod is scheduled",
  },
  PodStuckTerminating: {
    kind: "Pod",
    family: "pods",
    tier: "warning",
    holdSeconds: 0,
    description: "The pod has been terminating for 5 minutes past its grace period (finalizers or a kill that failed).",
    resolves: "the pod is gone",
  },
  ReadinessProbeFailing: {
    kind: "Pod",
    family: "pods",
    tier: "warning",
    holdSeconds: 300,
    description: "The pod runs but has not been ready for 5 minutes while its owner expects it to serve.",
    resolves: "the pod is ready",
  },
  PodNeverReady: {
    kind: "Pod",
    family: "pods",
    tier: "normal",
    holdSeconds: 300,
    description:
      "A pod has run for 5 minutes without ever becoming ready while other pods of its controller serve: listed once in the low-priority digest, not announced (spec 1.6).",
    resolves: "the pod is ready or gone",
  },
  WorkloadUnavailable: {
    kind: "Deployment",
    family: "workloads",
    tier: "high",
    holdSeconds: 120,
    pageRule: "LastReplicaDown",
    description:
      "A Deployment or StatefulSet that wants replicas has had none available for 2 minutes (rollouts and scale-ups pass through 0); pages (LastReplicaDown) when a Service users reach (LoadBalancer, NodePort, Ingress, Gateway route) selects its pods.",
    resolves: "a replica is available",
  },
  ProgressDeadlineExceeded: {
    kind: "Deployment",
    family: "workloads",
    tier: "medium",
    holdSeconds: 0,
    description: "A rollout has not progressed within its progress deadline.",
    resolves: "the rollout progresses",
  },
  ReplicaCreateFailed: {
    kind: "ReplicaSet",
    family: "workloads",
    tier: "high",
    holdSeconds: 0,
    description:
      "A controller cannot create pods (ReplicaFailure FailedCreate: quota, admission webhook, missing ServiceAccount).",
    resolves: "the condition clears",
  },
  JobFailed: {
    kind: "Job",
    family: "workloads",
    tier: "warning",
    holdSeconds: 0,
    description:
      "A Job failed (backoff limit, deadline, pod failure policy); the controller's message says which. A CronJob's run opens a minute after it failed, so its pods, which say why, are told first.",
    resolves: "the Job is deleted or a newer run of its CronJob succeeds",
  },
  CronJobFailing: {
    kind: "CronJob",
    family: "workloads",
    tier: "warning",
    // A minute after the run failed: its pods, which say why, are told first and name the incident (issue 40).
    holdSeconds: 60,
    description:
      "The newest finished run of a CronJob failed and no later run succeeded (a run under way is no success yet).",
    resolves: "a run succeeds",
  },
  PVCPending: {
    kind: "PersistentVolumeClaim",
    family: "storage",
    tier: "medium",
    holdSeconds: 300,
    description:
      "A claim has been Pending for 5 minutes (not while a WaitForFirstConsumer class waits for its first pod).",
    resolves: "the claim is Bound",
  },
  PVCLost: {
    kind: "PersistentVolumeClaim",
    family: "storage",
    tier: "high",
    holdSeconds: 0,
    description: "A claim is Lost: its PersistentVolume was deleted.",
    resolves: "the claim is rebound or deleted",
  },
  StorageClassMissing: {
    kind: "PersistentVolumeClaim",
    family: "storage",
    tier: "medium",
    holdSeconds: 0,
    description:
      "A Pending claim names a StorageClass that does not exist, or none when the cluster has no default class.",
    resolves: "the class exists or the claim is Bound",
  },
  PVFailed: {
    kind: "PersistentVolume",
    family: "storage",
    tier: "warning",
    holdSeconds: 0,
    description: "A PersistentVolume's reclaim failed (phase Failed).",
    resolves: "the volume leaves Failed",
  },
  VolumeAttachmentFailed: {
    kind: "VolumeAttachment",
    family: "storage",
    tier: "medium",
    holdSeconds: 0,
    description: "A volume cannot attach to (or detach from) its node; the CSI driver's error is quoted.",
    resolves: "the error clears",
  },
  VolumeUsageHigh: {
    kind: "PersistentVolumeClaim",
    family: "storage",
    tier: "warning",
    holdSeconds: 0,
    description: "A mounted volume is at least 90 % full (kubelet statistics).",
    resolves: "usage falls below 90 %",
  },
  VolumeFull: {
    kind: "PersistentVolumeClaim",
    family: "storage",
    tier: "high",
    holdSeconds: 0,
    description: "A mounted volume has less than 3 % of its capacity left (kubelet statistics).",
    resolves: "3 % or more is free",
  },
  VolumeInodesLow: {
    kind: "PersistentVolumeClaim",
    family: "storage",
    tier: "warning",
    holdSeconds: 0,
    description: "A mounted volume has less than 5 % of its inodes free (kubelet statistics).",
    resolves: "5 % or more inodes are free",
  },
  SecretMissing: {
    kind: "Secret",
    family: "config",
    tier: "medium",
    holdSeconds: 0,
    description:
      "A Secret (or one of its keys) that failing pods reference does not exist; it is the root of their incident.",
    resolves: "the Secret (and key) exists",
  },
  ConfigMapMissing: {
    kind: "ConfigMap",
    family: "config",
    tier: "medium",
    holdSeconds: 0,
    description:
      "A ConfigMap (or one of its keys) that failing pods reference does not exist; it is the root of their incident.",
    resolves: "the ConfigMap (and key) exists",
  },
  CertificateExpired: {
    kind: "Secret",
    family: "config",
    tier: "high",
    holdSeconds: 0,
    description:
      "A certificate in use has expired: a TLS Secret an Ingress serves or a running pod mounts, or a cert-manager Certificate (status.notAfter). With watch.secrets false only Certificates can be verified.",
    resolves: "a valid certificate replaces it",
  },
  CertificateExpiringSoon: {
    kind: "Secret",
    family: "config",
    tier: "warning",
    holdSeconds: 0,
    description:
      "A certificate in use expires within 14 days (cert-manager renews well before that: one this close did not renew).",
    resolves: "a certificate valid for more than 14 days replaces it",
  },
  ServiceAccountMissing: {
    kind: "ServiceAccount",
    family: "config",
    tier: "high",
    holdSeconds: 0,
    description: "A controller cannot create pods because their ServiceAccount does not exist.",
    resolves: "the ServiceAccount exists",
  },
  FailedMount: {
    kind: "Pod",
    family: "events",
    tier: "medium",
    holdSeconds: 0,
    description:
      "A volume of the pod cannot be mounted (FailedMount or FailedMapVolume twice in 15 minutes); the kubelet's message names the volume.",
    resolves: "15 minutes without the event",
  },
  FailedAttachVolume: {
    kind: "Pod",
    family: "events",
    tier: "medium",
    holdSeconds: 0,
    description: "A volume cannot be attached for the pod (e.g. Multi-Attach: still attached to another node).",
    resolves: "15 minutes without the event",
  },
  FailedCreatePodSandBox: {
    kind: "Pod",
    family: "events",
    tier: "medium",
    holdSeconds: 0,
    description: "The pod's sandbox (network) cannot be created, 3 times in 15 minutes; the CNI error is quoted.",
    resolves: "15 minutes without the event",
  },
  NetworkNotReady: {
    kind: "Pod",
    family: "events",
    tier: "medium",
    holdSeconds: 0,
    description: "The node has no pod network yet (CNI not ready).",
    resolves: "15 minutes without the event",
  },
  NodeSystemOOM: {
    kind: "Node",
    family: "events",
    tier: "warning",
    holdSeconds: 0,
    description: "The node ran out of memory and the kernel killed a process (SystemOOM).",
    resolves: "15 minutes without the event",
  },
  NodeEvicting: {
    kind: "Node",
    family: "events",
    tier: "warning",
    holdSeconds: 0,
    description: "The kubelet is evicting pods to reclaim a resource (EvictionThresholdMet).",
    resolves: "15 minutes without the event",
  },
  NodeImageGCFailed: {
    kind: "Node",
    family: "events",
    tier: "warning",
    holdSeconds: 0,
    description: "The kubelet cannot free disk by removing images (ImageGCFailed, FreeDiskSpaceFailed).",
    resolves: "15 minutes without the event",
  },
  NodeRebooted: {
    kind: "Node",
    family: "events",
    tier: "normal",
    holdSeconds: 0,
    description: "The node rebooted (Rebooted).",
    resolves: "15 minutes without the event",
  },
  ServiceNoReadyEndpoints: {
    kind: "Service",
    family: "network",
    tier: "high",
    holdSeconds: 0,
    pageRule: "UserEntryLostBackends",
    description:
      "A Service's selector matches pods but none is a ready endpoint; pages (UserEntryLostBackends) after 2 minutes when users reach it through a LoadBalancer, NodePort or Ingress and it is older than 10 minutes (mon's stand-in for 'had backends in the last 24 h').",
    resolves: "an endpoint is ready",
  },
  ServiceSelectorMatchesNothing: {
    kind: "Service",
    family: "network",
    tier: "medium",
    holdSeconds: 300,
    description: "A Service's selector matches no pod for 5 minutes.",
    resolves: "a pod matches",
  },
  IngressBackendMissing: {
    kind: "Ingress",
    family: "network",
    tier: "medium",
    holdSeconds: 0,
    description: "An Ingress routes to a Service (or port) that does not exist.",
    resolves: "the Service and port exist",
  },
  APIServerUnhealthy: {
    kind: "APIServer",
    family: "controlPlane",
    tier: "high",
    holdSeconds: 0,
    pageRule: "ClusterCriticalDown",
    description:
      "The API server's /readyz reports failing checks (etcd, …); pages after 1 minute. A server failing only the checks of its own start (post-start hooks, informer sync) is told only if it is still not ready after that minute.",
    resolves: "every /readyz check passes",
  },
  APIServerUnreachable: {
    kind: "APIServer",
    family: "controlPlane",
    tier: "high",
    holdSeconds: 60,
    pageRule: "ClusterCriticalDown",
    description:
      "mon has not reached the API server for 1 minute (refused, unanswered, or 5xx/429 answers; etcd named when the server's /readyz does). No replica of mon can hold its state lock meanwhile: the one that held it last tells, pages, and resolves in the same thread when the server answers (docs/leadership.md).",
    resolves: "the API server answers mon again",
  },
  NetworkPolicyBlocksTraffic: {
    kind: "NetworkPolicy",
    family: "network",
    tier: "warning",
    holdSeconds: 0,
    description:
      "A namespace default-deny ingress NetworkPolicy admits no traffic to a Service whose pods are not ready; when it changed in the last 15 minutes it is named as their cause.",
    resolves: "another policy admits the traffic, or the pods are ready",
  },
  ClusterDNSUnavailable: {
    kind: "Deployment",
    family: "controlPlane",
    tier: "high",
    holdSeconds: 0,
    pageRule: "ClusterCriticalDown",
    description:
      "Cluster DNS (kube-system/kube-dns, CoreDNS) has no ready endpoint or no available replica; pages after 1 minute.",
    resolves: "DNS has a ready endpoint",
  },
  ControlPlaneLeaderLost: {
    kind: "Lease",
    family: "controlPlane",
    tier: "high",
    holdSeconds: 0,
    description:
      "The kube-scheduler or kube-controller-manager leader Lease in kube-system has not been renewed for twice its duration, or has no holder.",
    resolves: "the Lease is renewed",
  },
  APIServerErrorRate: {
    kind: "APIServer",
    family: "controlPlane",
    tier: "high",
    holdSeconds: 0,
    description:
      "At least 5 % of 100 or more API requests in the last minute were answered with a 5xx (the API server's /metrics; watches and health endpoints left out).",
    resolves: "under 5 % in a later minute",
  },
  ClusterDNSErrors: {
    kind: "Deployment",
    family: "controlPlane",
    tier: "medium",
    holdSeconds: 0,
    description:
      "Cluster DNS answered at least 5 % of 50 or more queries in the last minute with SERVFAIL (CoreDNS metrics, port 9153).",
    resolves: "under 5 % in a later minute",
  },
  ClusterDNSUpstreamDown: {
    kind: "Deployment",
    family: "controlPlane",
    tier: "high",
    holdSeconds: 0,
    description:
      "CoreDNS found every upstream resolver down (its forward health check broke): names outside the cluster do not resolve.",
    resolves: "a minute without a break",
  },
  ActiveProbeFailure: {
    kind: "Probe",
    family: "probes",
    tier: "high",
    holdSeconds: 0,
    description:
      "An active probe (Pro, spec 2.3) failed failureThreshold rounds in a row: a configured http/tcp/dns target, a ClusterIP Service (autoServices) or an external dependency named in Pod environment values (autoDependencies; it becomes the root of the failing pods that call it).",
    resolves: "the probe succeeds once",
  },
  ActiveProbeSlow: {
    kind: "Probe",
    family: "probes",
    tier: "warning",
    holdSeconds: 0,
    description: "An http probe answered, but slower than its latencyWarningMs.",
    resolves: "an answer within latencyWarningMs",
  },
  ActiveProbeTooSlow: {
    kind: "Probe",
    family: "probes",
    tier: "high",
    holdSeconds: 0,
    description: "An http probe answered, but slower than its latencyCriticalMs.",
    resolves: "an answer within latencyCriticalMs",
  },
  NodeNotReady: {
    kind: "Node",
    family: "nodes",
    tier: "high",
    holdSeconds: 0,
    pageRule: "ClusterCriticalDown",
    description: "The node's Ready condition is False: the kubelet reports it cannot run pods.",
    resolves: "the node is Ready",
  },
  NodeLost: {
    kind: "Node",
    family: "nodes",
    tier: "high",
    holdSeconds: 0,
    pageRule: "ClusterCriticalDown",
    description:
      "The node's Ready condition is Unknown: the kubelet stopped posting status (node down or unreachable).",
    resolves: "the node is Ready or removed",
  },
  NodeMemoryPressure: {
    kind: "Node",
    family: "nodes",
    tier: "warning",
    holdSeconds: 120,
    description: "The kubelet reports MemoryPressure and may evict pods.",
    resolves: "the condition is False",
  },
  NodeDiskPressure: {
    kind: "Node",
    family: "nodes",
    tier: "warning",
    holdSeconds: 120,
    description: "The kubelet reports DiskPressure and may evict pods.",
    resolves: "the condition is False",
  },
  NodePIDPressure: {
    kind: "Node",
    family: "nodes",
    tier: "warning",
    holdSeconds: 120,
    description: "The kubelet reports PIDPressure.",
    resolves: "the condition is False",
  },
  NodeNetworkUnavailable: {
    kind: "Node",
    family: "nodes",
    tier: "high",
    holdSeconds: 0,
    description: "The node's network is not configured (NetworkUnavailable is True).",
    resolves: "the condition is False",
  },
} as const satisfies Record<string, ReasonSpec>;

/** A reason name of the catalogue: one of its keys. */
export type Reason = keyof typeof REASON_SPECS;

/** The catalogue as a list, in the table's order (docs/reasons.md, coverage). */
export const REASONS: readonly ReasonEntry[] = Object.entries(REASON_SPECS).map(([reason, spec]) => ({
  reason,
  ...spec,
}));

/** The catalogue entry of a reason; throws Error naming it when a detector uses a reason the catalogue lacks. */
export function entry(reason: Reason): ReasonEntry {
  const found = BY_REASON.get(reason);
  if (!found) throw new Error(`reason ${reason} is not in the catalogue`);
  return found;
}

/** Minutes a node must stay down before page rule P3 (cluster-critical component down) pages (failure-catalogue 0.2). */
export const NODE_PAGE_HOLD_MS = 5 * 60_000;

const BY_REASON = new Map(REASONS.map((r) => [r.reason, r]));
