import type {
  CoreV1Event,
  V1Container,
  V1ContainerStatus,
  V1ContainerStateTerminated,
  V1ContainerStateWaiting,
  V1Endpoint,
  V1IngressBackend,
  V1OwnerReference,
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
  V1Secret,
  V1Service,
  V1ServiceAccount,
  V1StatefulSet,
  V1StorageClass,
  V1VolumeAttachment,
} from "@kubernetes/client-node";

/**
 * A Kubernetes type as it arrives on the wire (JSON): client-node's generated types describe objects after its
 * own deserializer turned timestamps into `Date`; mon reads the JSON the API server sent, where they are
 * RFC 3339 strings. Types only: nothing of client-node runs in the pure core.
 */
export type Wire<T> = T extends Date
  ? string
  : T extends readonly (infer U)[]
    ? readonly Wire<U>[]
    : T extends object
      ? { readonly [K in keyof T]: Wire<T[K]> }
      : T;

/** Metadata of an object the API server served: it always has a name. */
export type ServedMeta = Wire<V1ObjectMeta> & { readonly name: string };

/** An object of a built-in kind as served (JSON): its wire shape with `metadata.name` always present. */
export type Served<T extends { metadata?: V1ObjectMeta }> = Omit<Wire<T>, "metadata"> & {
  readonly metadata: ServedMeta;
  readonly kind?: string;
  readonly apiVersion?: string;
};

export type Pod = Served<V1Pod>;
export type Node = Served<V1Node>;
export type Service = Served<V1Service>;
export type EndpointSlice = Served<V1EndpointSlice>;
export type Deployment = Served<V1Deployment>;
export type ReplicaSet = Served<V1ReplicaSet>;
export type StatefulSet = Served<V1StatefulSet>;
export type DaemonSet = Served<V1DaemonSet>;
export type Job = Served<V1Job>;
export type CronJob = Served<V1CronJob>;
export type PersistentVolumeClaim = Served<V1PersistentVolumeClaim>;
export type PersistentVolume = Served<V1PersistentVolume>;
export type StorageClass = Served<V1StorageClass>;
export type VolumeAttachment = Served<V1VolumeAttachment>;
export type Event = Served<CoreV1Event>;
export type Namespace = Served<V1Namespace>;
export type NetworkPolicy = Served<V1NetworkPolicy>;
export type Ingress = Served<V1Ingress>;
export type Lease = Served<V1Lease>;
export type ConfigMap = Served<V1ConfigMap>;
/**
 * A Secret as mon caches it: every value replaced by its SHA-256 (kube/object-filter.ts) and, for a `tls.crt`,
 * the public facts of its certificate (`notAfter` RFC 3339, subject, DNS names).
 */
export type Secret = Served<V1Secret> & {
  readonly tlsCertificate?: {
    readonly notAfter: string;
    readonly subject: string;
    readonly dnsNames: readonly string[];
  };
};

/** A cert-manager Certificate (cert-manager.io/v1), in the fields mon reads. */
export interface Certificate extends ObjectLike {
  readonly spec?: { readonly secretName?: string; readonly dnsNames?: readonly string[] };
  readonly status?: {
    readonly notAfter?: string;
    readonly renewalTime?: string;
    readonly conditions?: readonly Condition[];
  };
}
export type ServiceAccount = Served<V1ServiceAccount>;
export type PodDisruptionBudget = Served<V1PodDisruptionBudget>;

/**
 * A Gateway API route (gateway.networking.k8s.io: HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute), in the
 * fields mon reads: its host names and the backends its rules send traffic to. `kind` defaults to Service, `namespace` to the route's.
 */
export interface GatewayRoute extends ObjectLike {
  readonly spec?: {
    /** The host names the route answers for (HTTPRoute, GRPCRoute, TLSRoute). */
    readonly hostnames?: readonly string[];
    readonly rules?: readonly {
      readonly backendRefs?: readonly {
        readonly group?: string;
        readonly kind?: string;
        readonly name?: string;
        readonly namespace?: string;
        readonly port?: number;
      }[];
    }[];
  };
}

/** The built-in kinds the pure core reads, by kind name: `inventory.list("Pod")` is a `Pod[]`. */
export interface Kinds {
  Pod: Pod;
  Node: Node;
  Service: Service;
  EndpointSlice: EndpointSlice;
  Deployment: Deployment;
  ReplicaSet: ReplicaSet;
  StatefulSet: StatefulSet;
  DaemonSet: DaemonSet;
  Job: Job;
  CronJob: CronJob;
  PersistentVolumeClaim: PersistentVolumeClaim;
  PersistentVolume: PersistentVolume;
  StorageClass: StorageClass;
  VolumeAttachment: VolumeAttachment;
  Event: Event;
  Namespace: Namespace;
  NetworkPolicy: NetworkPolicy;
  Ingress: Ingress;
  Lease: Lease;
  ConfigMap: ConfigMap;
  Secret: Secret;
  ServiceAccount: ServiceAccount;
  PodDisruptionBudget: PodDisruptionBudget;
  Certificate: Certificate;
  HTTPRoute: GatewayRoute;
  GRPCRoute: GatewayRoute;
  TLSRoute: GatewayRoute;
  TCPRoute: GatewayRoute;
  UDPRoute: GatewayRoute;
}

/** Elements of the kinds above, as served. */
export type Container = Wire<V1Container>;
export type ContainerStatus = Wire<V1ContainerStatus>;
export type TerminatedState = Wire<V1ContainerStateTerminated>;
export type WaitingState = Wire<V1ContainerStateWaiting>;
export type OwnerReference = Wire<V1OwnerReference>;
export type Endpoint = Wire<V1Endpoint>;
export type IngressBackend = Wire<V1IngressBackend>;

/** A status condition, of any kind (the fields every Kubernetes condition has). */
export interface Condition {
  readonly type?: string;
  readonly status?: string;
  readonly reason?: string;
  readonly message?: string;
  readonly lastTransitionTime?: string;
}

/** Any served object, built-in or custom: what every kind has. */
export interface ObjectLike {
  readonly kind?: string;
  readonly apiVersion?: string;
  readonly metadata: ServedMeta;
}

/** What annotation and label readers need of any object (maintenance, owner, ack). */
export interface Annotated {
  readonly metadata?: {
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
}
