import { controllerRef } from "../controllers/api.ts";
import type { KubeObject } from "../store.ts";

/** A Ready worker node as a kubelet reports it. `at` is epoch ms of its creation and last transition. */
export function readyNode(name: string, at: number): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      creationTimestamp: new Date(at).toISOString(),
      labels: { "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64" },
    },
    spec: {},
    status: {
      conditions: [nodeReady("True", at)],
      nodeInfo: {
        kubeletVersion: "v1.32.13",
        containerRuntimeVersion: "containerd://2.0.5",
        osImage: "Ubuntu 24.04 LTS",
      },
      // Loopback, so that nothing ever dials outside this machine; the kubelet port comes from daemonEndpoints.
      addresses: [
        { type: "InternalIP", address: "127.0.0.1" },
        { type: "Hostname", address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    },
  };
}

/**
 * The Warning Event the kubelet records when it finds its node's boot id changed (pkg/kubelet/nodestatus: reason
 * `Rebooted`, in namespace default). `at` is epoch ms; `bootId` the new boot id.
 */
export function rebootedEvent(node: string, at: number, bootId: string): KubeObject {
  const time = new Date(at).toISOString();
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: {
      namespace: "default",
      name: `${node}.reboot`,
      uid: `reboot-${node}-${bootId}`,
      creationTimestamp: time,
    },
    type: "Warning",
    reason: "Rebooted",
    message: `Node ${node} has been rebooted, boot id: ${bootId}`,
    count: 1,
    firstTimestamp: time,
    lastTimestamp: time,
    involvedObject: { kind: "Node", name: node, apiVersion: "v1" },
    source: { component: "kubelet", host: node },
  };
}

/** The Ready condition as the kubelet (True/False) or the node lifecycle controller (Unknown) writes it. */
export function nodeReady(status: "True" | "False" | "Unknown", at: number): KubeObject {
  const iso = new Date(at).toISOString().replace(/\.\d+Z$/, "Z");
  if (status === "True")
    return {
      type: "Ready",
      status,
      reason: "KubeletReady",
      message: "kubelet is posting ready status",
      lastHeartbeatTime: iso,
      lastTransitionTime: iso,
    };
  if (status === "Unknown")
    return {
      type: "Ready",
      status,
      reason: "NodeStatusUnknown",
      message: "Kubelet stopped posting node status.",
      lastHeartbeatTime: iso,
      lastTransitionTime: iso,
    };
  return {
    type: "Ready",
    status,
    reason: "KubeletNotReady",
    message: "container runtime is down",
    lastHeartbeatTime: iso,
    lastTransitionTime: iso,
  };
}

/** A Deployment and its ReplicaSet (owner references as the controllers write them). */
export function deployment(
  namespace: string,
  name: string,
  replicas: number,
  image: string,
  hash: string,
): { deployment: KubeObject; replicaSet: KubeObject } {
  const labels = { app: name };
  const template = { metadata: { labels }, spec: { containers: [{ name, image }] } };
  // Status as the Deployment and ReplicaSet controllers write it for a rolled-out, available workload.
  const available = {
    type: "Available",
    status: "True",
    reason: "MinimumReplicasAvailable",
    message: "Deployment has minimum availability.",
  };
  const progressing = {
    type: "Progressing",
    status: "True",
    reason: "NewReplicaSetAvailable",
    message: `ReplicaSet "${name}-${hash}" has successfully progressed.`,
  };
  const dep: KubeObject = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { namespace, name, labels },
    spec: { replicas, selector: { matchLabels: labels }, template },
    status: {
      observedGeneration: 1,
      replicas,
      updatedReplicas: replicas,
      readyReplicas: replicas,
      availableReplicas: replicas,
      conditions: [available, progressing],
    },
  };
  const rs: KubeObject = {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: {
      namespace,
      name: `${name}-${hash}`,
      labels: { ...labels, "pod-template-hash": hash },
      // The Deployment controller numbers each pod template it rolls out.
      annotations: { "deployment.kubernetes.io/revision": "1" },
    },
    spec: { replicas, selector: { matchLabels: { ...labels, "pod-template-hash": hash } }, template },
    status: {
      replicas,
      fullyLabeledReplicas: replicas,
      readyReplicas: replicas,
      availableReplicas: replicas,
      observedGeneration: 1,
    },
  };
  return { deployment: dep, replicaSet: rs };
}

/** Owner reference to an object created in the simulator (needs its uid): the one the controllers write. */
export const ownerRef = controllerRef;

/** A pod of a ReplicaSet bound to `node`, with its status as the kubelet writes it for a running, ready container. */
export function runningPod(
  replicaSet: KubeObject,
  suffix: string,
  node: string,
  at: number,
  image?: string,
): KubeObject {
  const container = replicaSet.spec.template.spec.containers[0];
  const iso = new Date(at).toISOString().replace(/\.\d+Z$/, "Z");
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      namespace: replicaSet.metadata.namespace,
      name: `${replicaSet.metadata.name}-${suffix}`,
      labels: { ...replicaSet.spec.selector.matchLabels },
      ownerReferences: [ownerRef(replicaSet)],
    },
    spec: { nodeName: node, containers: [{ name: container.name, image: image ?? container.image }] },
    status: runningStatus(container.name, image ?? container.image, iso),
  };
}

/** Status of a pod whose one container runs and is ready. */
export function runningStatus(container: string, image: string, iso: string, restartCount = 0): KubeObject {
  return {
    phase: "Running",
    conditions: [
      { type: "PodScheduled", status: "True", lastTransitionTime: iso },
      { type: "Initialized", status: "True", lastTransitionTime: iso },
      { type: "ContainersReady", status: "True", lastTransitionTime: iso },
      { type: "Ready", status: "True", lastTransitionTime: iso },
    ],
    startTime: iso,
    containerStatuses: [
      {
        name: container,
        image,
        imageID: `${image}@sha256:${"0".repeat(64)}`,
        ready: true,
        started: true,
        restartCount,
        state: { running: { startedAt: iso } },
        lastState: {},
      },
    ],
  };
}
