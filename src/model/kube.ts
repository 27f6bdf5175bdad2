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
  V1Secret,
  V1Service,
  V1ServiceAccount,
  V1StatefulSet,
  V1StorageClass,
  V1VolumeAttachment,
} from "@kubernetes/client-node";
import type { Projected } from "./projection.ts";
import type { SHAPES } from "./shapes.ts";

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

export type Pod = Projected<Served<V1Pod>, (typeof SHAPES)["Pod"]>;
export type Node = Projected<Served<V1Node>, (typeof SHAPES)["Node"]>;
export type Service = Projected<Served<V1Service>, (typeof SHAPES)["Service"]>;
export type EndpointSlice = Projected<Served<V1EndpointSlice>, (typeof SHAPES)["EndpointSlice"]>;
export type Deployment = Projected<Served<V1Deployment>, (typeof SHAPES)["Deployment"]>;
export type ReplicaSet = Projected<Served<V1ReplicaSet>, (typeof SHAPES)["ReplicaSet"]>;
export type StatefulSet = Projected<Served<V1StatefulSet>, (typeof SHAPES)["StatefulSet"]>;
export type DaemonSet = Projected<Served<V1DaemonSet>, (typeof SHAPES)["DaemonSet"]>;
export type Job = Projected<Served<V1Job>, (typeof SHAPES)["Job"]>;
export type CronJob = Projected<Served<V1CronJob>, (typeof SHAPES)["CronJob"]>;
export type PersistentVolumeClaim = Projected<
  Served<V1PersistentVolumeClaim>,
  (typeof SHAPES)["PersistentVolumeClaim"]
>;
export type PersistentVolume = Projected<Served<V1PersistentVolume>, (typeof SHAPES)["PersistentVolume"]>;
export type StorageClass = Projected<Served<V1StorageClass>, (typeof SHAPES)["StorageClass"]>;
export type VolumeAttachment = Projected<Served<V1VolumeAttachment>, (typeof SHAPES)["VolumeAttachment"]>;
export type Event = Projected<Served<CoreV1Event>, (typeof SHAPES)["Event"]>;
export type Namespace = Projected<Served<V1Namespace>, (typeof SHAPES)["Namespace"]>;
export type NetworkPolicy = Projected<Served<V1NetworkPolicy>, (typeof SHAPES)["NetworkPolicy"]>;
export type Ingress = Projected<Served<V1Ingress>, (typeof SHAPES)["Ingress"]>;
export type Lease = Projected<Served<V1Lease>, (typeof SHAPES)["Lease"]>;
export type ConfigMap = Projected<Served<V1ConfigMap>, (typeof SHAPES)["ConfigMap"]>;
/**
 * A Secret as mon caches it: every value replaced by its SHA-256 (kube/object-filter.ts) and, for a `tls.crt`,
 * the public facts of its certificate (`notAfter` RFC 3339, subject, DNS names).
 */
export type Secret = Projected<CachedSecret, (typeof SHAPES)["Secret"]>;

/** A Secret as the door receives it (kube/object-filter.ts `hashSecretValues`): values hashed, certificate facts added. */
export type CachedSecret = Served<V1Secret> & {
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
export type ServiceAccount = Projected<Served<V1ServiceAccount>, (typeof SHAPES)["ServiceAccount"]>;
export type PodDisruptionBudget = Projected<Served<V1PodDisruptionBudget>, (typeof SHAPES)["PodDisruptionBudget"]>;

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

/** Elements of the kinds above, as kept (their kind's declared projection, model/shapes.ts). */
type Item<T> = NonNullable<T> extends readonly (infer U)[] ? U : never;
type PodSpec = NonNullable<Pod["spec"]>;
type PodStatus = NonNullable<Pod["status"]>;
export type Container = Item<PodSpec["containers"]>;
export type ContainerStatus = Item<PodStatus["containerStatuses"]>;
export type TerminatedState = NonNullable<NonNullable<ContainerStatus["state"]>["terminated"]>;
export type WaitingState = NonNullable<NonNullable<ContainerStatus["state"]>["waiting"]>;
export type OwnerReference = Item<Pod["metadata"]["ownerReferences"]>;
export type Endpoint = Item<EndpointSlice["endpoints"]>;
export type IngressBackend = NonNullable<NonNullable<Ingress["spec"]>["defaultBackend"]>;

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
