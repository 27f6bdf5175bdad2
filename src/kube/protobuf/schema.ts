/**
 * The protobuf schema of the built-in kinds mon watches (issue 55), as kube-apiserver v1.32 serves them:
 * generated from Kubernetes' own `generated.proto` files by scripts/sync-protos.ts and kept in the repository
 * (schema.generated.json), so decoding needs nothing from outside. Custom resources have no protobuf form: they
 * stay JSON.
 */

/** Where the generated schema is kept, from the repository's root. */
export const SCHEMA_PATH = "src/kube/protobuf/schema.generated.json";

/**
 * One field of a message: its number, its name (the JSON name: Kubernetes' protobuf fields are named as their
 * JSON fields), its type (a scalar such as `string`, `int64`, `bytes`, or a message's full name), its rule,
 * what its Go type says of its JSON form (letters: `e` omitted when empty, `p` a pointer, `i` inlined into its
 * parent, `n` written `null` when unset), and for a map its key type.
 */
export type ProtoField = readonly [
  number: number,
  name: string,
  type: string,
  rule: "optional" | "repeated" | "map",
  json: string,
  keyType?: string,
];

/** The schema: `source` says which tag it came from; `messages` each message's fields by number. */
export interface ProtoSchema {
  readonly source: string;
  readonly messages: Readonly<Record<string, readonly ProtoField[]>>;
}

/**
 * The message of each built-in kind mon watches, by `apiVersion/kind` as the API server serves it (the group's
 * preferred version in v1.32); its list is `<message>List`.
 */
export const KIND_MESSAGES: Readonly<Record<string, string>> = {
  "v1/Namespace": "k8s.io.api.core.v1.Namespace",
  "v1/Node": "k8s.io.api.core.v1.Node",
  "v1/Pod": "k8s.io.api.core.v1.Pod",
  "v1/Service": "k8s.io.api.core.v1.Service",
  "v1/Endpoints": "k8s.io.api.core.v1.Endpoints",
  "v1/Event": "k8s.io.api.core.v1.Event",
  "v1/PersistentVolumeClaim": "k8s.io.api.core.v1.PersistentVolumeClaim",
  "v1/PersistentVolume": "k8s.io.api.core.v1.PersistentVolume",
  "v1/ConfigMap": "k8s.io.api.core.v1.ConfigMap",
  "v1/Secret": "k8s.io.api.core.v1.Secret",
  "v1/ServiceAccount": "k8s.io.api.core.v1.ServiceAccount",
  "apps/v1/Deployment": "k8s.io.api.apps.v1.Deployment",
  "apps/v1/ReplicaSet": "k8s.io.api.apps.v1.ReplicaSet",
  "apps/v1/StatefulSet": "k8s.io.api.apps.v1.StatefulSet",
  "apps/v1/DaemonSet": "k8s.io.api.apps.v1.DaemonSet",
  "apps/v1/ControllerRevision": "k8s.io.api.apps.v1.ControllerRevision",
  "batch/v1/Job": "k8s.io.api.batch.v1.Job",
  "batch/v1/CronJob": "k8s.io.api.batch.v1.CronJob",
  "discovery.k8s.io/v1/EndpointSlice": "k8s.io.api.discovery.v1.EndpointSlice",
  "networking.k8s.io/v1/Ingress": "k8s.io.api.networking.v1.Ingress",
  "networking.k8s.io/v1/NetworkPolicy": "k8s.io.api.networking.v1.NetworkPolicy",
  "storage.k8s.io/v1/StorageClass": "k8s.io.api.storage.v1.StorageClass",
  "storage.k8s.io/v1/VolumeAttachment": "k8s.io.api.storage.v1.VolumeAttachment",
  "storage.k8s.io/v1/CSIDriver": "k8s.io.api.storage.v1.CSIDriver",
  "coordination.k8s.io/v1/Lease": "k8s.io.api.coordination.v1.Lease",
  "policy/v1/PodDisruptionBudget": "k8s.io.api.policy.v1.PodDisruptionBudget",
  "autoscaling/v2/HorizontalPodAutoscaler": "k8s.io.api.autoscaling.v2.HorizontalPodAutoscaler",
};
