import type {
  CoreV1Event,
  V1ConfigMap,
  V1CronJob,
  V1DaemonSet,
  V1Deployment,
  V1EndpointSlice,
  V1Ingress,
  V1Job,
  V1Lease,
  V1Namespace,
  V1NetworkPolicy,
  V1Node,
  V1ObjectMeta,
  V1PersistentVolume,
  V1PersistentVolumeClaim,
  V1Pod,
  V1PodDisruptionBudget,
  V1ReplicaSet,
  V1Service,
  V1ServiceAccount,
  V1StatefulSet,
  V1StorageClass,
  V1VolumeAttachment,
} from "@kubernetes/client-node";
import type { CachedSecret, Certificate, GatewayRoute, Served, Wire } from "./kube.ts";
import { defineShape } from "./projection.ts";

/** What mon reads of every object's metadata but its writers. */
const META_FIELDS = {
  name: true,
  namespace: true,
  uid: true,
  resourceVersion: true,
  generation: true,
  creationTimestamp: true,
  deletionTimestamp: true,
  deletionGracePeriodSeconds: true,
  labels: true,
  annotations: true,
  ownerReferences: true,
  finalizers: true,
} as const;

/** What mon reads of every object's metadata. */
const META = defineShape<Wire<V1ObjectMeta>>()({
  ...META_FIELDS,
  // Who wrote last and when (what-changed names the author); never what they wrote.
  managedFields: [{ manager: true, operation: true, subresource: true, time: true }],
});

/**
 * What mon reads of a Pod's metadata: not who wrote it (managedFields) — a Pod's spec and status are its
 * controller's and its kubelet's, and what-changed reads writers only of what a person or a tool writes
 * (incident/changes.ts AUTHORED).
 */
const POD_META = defineShape<Wire<V1ObjectMeta>>()(META_FIELDS);

/**
 * What mon reads of a Pod's volumes: the ConfigMaps, Secrets and claims they name (model/config-refs.ts,
 * detect/storage.ts, detect/certificates.ts) — not the token, downward API and other sources every pod carries.
 */
const POD_VOLUME = {
  name: true,
  configMap: { name: true, optional: true },
  secret: { secretName: true, optional: true },
  projected: { sources: [{ configMap: { name: true, optional: true }, secret: { name: true, optional: true } }] },
  persistentVolumeClaim: { claimName: true },
} as const;

/** Every Gateway API route kind reads the same fields (model/kube.ts GatewayRoute). */
const ROUTE = defineShape<GatewayRoute>()({ kind: true, apiVersion: true, metadata: true, spec: true });

/**
 * The declared projection of every built-in kind mon reads (issue 42): the fields the Inventory keeps, and
 * through model/kube.ts the types detectors, correlation, impact, what-changed and explain read. A field a new
 * detector needs is added here: it then compiles, and the Inventory keeps it. Workloads' pod templates are kept
 * whole (what-changed describes how a template changed, whatever changed in it); a Pod keeps its containers' and
 * statuses' read fields only. Certificates and Gateway routes (custom resources) keep their spec and status whole.
 */
export const SHAPES = {
  Pod: defineShape<Served<V1Pod>>()({
    kind: true,
    apiVersion: true,
    metadata: POD_META,
    spec: {
      affinity: true,
      containers: [
        {
          env: true,
          envFrom: true,
          image: true,
          name: true,
          readinessProbe: true,
          resources: true,
          // Which volumes it uses: a kubelet mounts only those (issue 50).
          volumeMounts: [{ name: true }],
          volumeDevices: [{ name: true }],
        },
      ],
      ephemeralContainers: [{ name: true, volumeMounts: [{ name: true }], volumeDevices: [{ name: true }] }],
      imagePullSecrets: true,
      initContainers: [
        { env: true, envFrom: true, name: true, volumeMounts: [{ name: true }], volumeDevices: [{ name: true }] },
      ],
      nodeName: true,
      nodeSelector: true,
      restartPolicy: true,
      volumes: [POD_VOLUME],
      hostNetwork: true,
      priorityClassName: true,
      serviceAccountName: true,
    },
    status: {
      conditions: true,
      containerStatuses: [
        {
          image: true,
          imageID: true,
          lastState: true,
          name: true,
          ready: true,
          restartCount: true,
          started: true,
          state: true,
        },
      ],
      initContainerStatuses: true,
      message: true,
      phase: true,
      reason: true,
      startTime: true,
      podIP: true,
      podIPs: true,
      hostIP: true,
    },
  }),
  Node: defineShape<Served<V1Node>>()({
    kind: true,
    apiVersion: true,
    metadata: META,
    spec: { taints: true, unschedulable: true },
    status: {
      conditions: true,
      daemonEndpoints: true,
      nodeInfo: { kubeletVersion: true },
      addresses: true,
      capacity: true,
      allocatable: true,
    },
  }),
  Service: defineShape<Served<V1Service>>()({
    kind: true,
    apiVersion: true,
    metadata: META,
    spec: {
      clusterIP: true,
      ports: true,
      publishNotReadyAddresses: true,
      selector: true,
      type: true,
      clusterIPs: true,
      externalName: true,
    },
    status: { loadBalancer: true },
  }),
  Deployment: defineShape<Served<V1Deployment>>()({
    kind: true,
    apiVersion: true,
    metadata: META,
    spec: {
      replicas: true,
      template: true,
      progressDeadlineSeconds: true,
      selector: true,
      strategy: true,
      minReadySeconds: true,
      paused: true,
    },
    status: {
      availableReplicas: true,
      conditions: true,
      readyReplicas: true,
      updatedReplicas: true,
      replicas: true,
      unavailableReplicas: true,
      observedGeneration: true,
    },
  }),
  ReplicaSet: defineShape<Served<V1ReplicaSet>>()({
    kind: true,
    apiVersion: true,
    metadata: META,
    spec: { replicas: true, selector: true, template: true },
    status: { replicas: true, readyReplicas: true, availableReplicas: true, conditions: true },
  }),
  StatefulSet: defineShape<Served<V1StatefulSet>>()({
    kind: true,
    apiVersion: true,
    metadata: META,
    spec: { replicas: true, template: true, selector: true, updateStrategy: true },
    status: true,
  }),
  DaemonSet: defineShape<Served<V1DaemonSet>>()({
    kind: true,
    apiVersion: true,
    metadata: META,
    spec: { template: true, selector: true, updateStrategy: true },
    status: true,
  }),
  Job: defineShape<Served<V1Job>>()({
    kind: true,
    apiVersion: true,
    metadata: META,
    spec: {
      backoffLimit: true,
      completions: true,
      parallelism: true,
      activeDeadlineSeconds: true,
      template: true,
      suspend: true,
    },
    status: true,
  }),
  CronJob: defineShape<Served<V1CronJob>>()({
    kind: true,
    apiVersion: true,
    metadata: META,
    spec: {
      schedule: true,
      suspend: true,
      jobTemplate: true,
      timeZone: true,
      concurrencyPolicy: true,
      startingDeadlineSeconds: true,
    },
    status: { lastScheduleTime: true, lastSuccessfulTime: true },
  }),
  PersistentVolumeClaim: defineShape<Served<V1PersistentVolumeClaim>>()({
    kind: true,
    apiVersion: true,
    metadata: META,
    spec: { resources: true, storageClassName: true, volumeName: true },
    status: { phase: true },
  }),
  PersistentVolume: defineShape<Served<V1PersistentVolume>>()({
    kind: true,
    apiVersion: true,
    metadata: META,
    spec: { claimRef: true, persistentVolumeReclaimPolicy: true },
    status: { message: true, phase: true },
  }),
  VolumeAttachment: defineShape<Served<V1VolumeAttachment>>()({
    kind: true,
    apiVersion: true,
    metadata: META,
    spec: { attacher: true, nodeName: true, source: true },
    status: { attachError: true, detachError: true },
  }),
  Namespace: defineShape<Served<V1Namespace>>()({
    kind: true,
    apiVersion: true,
    metadata: META,
    spec: {},
    status: { phase: true, conditions: true },
  }),
  NetworkPolicy: defineShape<Served<V1NetworkPolicy>>()({
    kind: true,
    apiVersion: true,
    metadata: META,
    spec: { ingress: true, podSelector: true, policyTypes: true },
    status: {},
  }),
  Ingress: defineShape<Served<V1Ingress>>()({
    kind: true,
    apiVersion: true,
    metadata: META,
    spec: { defaultBackend: true, rules: true, tls: true },
    status: {},
  }),
  Lease: defineShape<Served<V1Lease>>()({
    kind: true,
    apiVersion: true,
    metadata: META,
    spec: {
      acquireTime: true,
      holderIdentity: true,
      leaseDurationSeconds: true,
      leaseTransitions: true,
      renewTime: true,
    },
    status: {},
  }),
  PodDisruptionBudget: defineShape<Served<V1PodDisruptionBudget>>()({
    kind: true,
    apiVersion: true,
    metadata: META,
    spec: { minAvailable: true, maxUnavailable: true, selector: true },
    status: {
      disruptionsAllowed: true,
      expectedPods: true,
      currentHealthy: true,
      desiredHealthy: true,
    },
  }),
  EndpointSlice: defineShape<Served<V1EndpointSlice>>()({
    kind: true,
    apiVersion: true,
    metadata: META,
    addressType: true,
    endpoints: [{ conditions: true }],
    ports: true,
  }),
  StorageClass: defineShape<Served<V1StorageClass>>()({
    kind: true,
    apiVersion: true,
    metadata: META,
    provisioner: true,
    parameters: true,
    reclaimPolicy: true,
    volumeBindingMode: true,
    allowVolumeExpansion: true,
  }),
  Event: defineShape<Served<CoreV1Event>>()({
    kind: true,
    apiVersion: true,
    metadata: META,
    involvedObject: { fieldPath: true, kind: true, name: true, namespace: true, uid: true },
    reason: true,
    message: true,
    type: true,
    count: true,
    firstTimestamp: true,
    lastTimestamp: true,
    eventTime: true,
    series: true,
    source: true,
    reportingComponent: true,
    reportingInstance: true,
    action: true,
    related: true,
  }),
  ConfigMap: defineShape<Served<V1ConfigMap>>()({
    kind: true,
    apiVersion: true,
    metadata: META,
    data: true,
    binaryData: true,
    immutable: true,
  }),
  Secret: defineShape<CachedSecret>()({
    kind: true,
    apiVersion: true,
    metadata: META,
    data: true,
    type: true,
    immutable: true,
    tlsCertificate: true,
  }),
  ServiceAccount: defineShape<Served<V1ServiceAccount>>()({
    kind: true,
    apiVersion: true,
    metadata: META,
    secrets: true,
    imagePullSecrets: true,
    automountServiceAccountToken: true,
  }),
  Certificate: defineShape<Certificate>()({ kind: true, apiVersion: true, metadata: true, spec: true, status: true }),
  HTTPRoute: ROUTE,
  GRPCRoute: ROUTE,
  TLSRoute: ROUTE,
  TCPRoute: ROUTE,
  UDPRoute: ROUTE,
} as const;
