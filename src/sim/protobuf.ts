import protobuf from "protobufjs";
import { badRequest, failure } from "./status.ts";
import type { KubeObject } from "./store.ts";

/** The media type kubectl's typed clients send (and prefer) for built-in kinds. */
export const PROTOBUF = "application/vnd.kubernetes.protobuf";

/**
 * The part of Kubernetes' protobuf schema (k8s.io/api and apimachinery `generated.proto`, same field numbers)
 * that `kubectl create namespace|configmap|secret|deployment|service|job` and `kubectl run` send. Fields outside
 * it are skipped, as any protobuf reader skips unknown fields. Embedded Go structs (LocalObjectReference in key
 * selectors) are fields in protobuf and inlined in JSON; `toJson` flattens them.
 */
const SCHEMA = `
syntax = "proto2";
package k8s;
message Unknown { optional TypeMeta typeMeta = 1; optional bytes raw = 2; optional string contentEncoding = 3; optional string contentType = 4; }
message TypeMeta { optional string apiVersion = 1; optional string kind = 2; }
message Time { optional int64 seconds = 1; optional int32 nanos = 2; }
message IntOrString { optional int64 type = 1; optional int32 intVal = 2; optional string strVal = 3; }
message Quantity { optional string string = 1; }
message ObjectMeta {
  optional string name = 1; optional string generateName = 2; optional string namespace = 3; optional string uid = 5;
  optional string resourceVersion = 6; map<string, string> labels = 11; map<string, string> annotations = 12;
  repeated OwnerReference ownerReferences = 13; repeated string finalizers = 14;
}
message OwnerReference { optional string kind = 1; optional string name = 3; optional string uid = 4; optional string apiVersion = 5; optional bool controller = 6; optional bool blockOwnerDeletion = 7; }
message LabelSelector { map<string, string> matchLabels = 1; repeated LabelSelectorRequirement matchExpressions = 2; }
message LabelSelectorRequirement { optional string key = 1; optional string operator = 2; repeated string values = 3; }
message Namespace { optional ObjectMeta metadata = 1; optional NamespaceSpec spec = 2; }
message NamespaceSpec { repeated string finalizers = 1; }
message ConfigMap { optional ObjectMeta metadata = 1; map<string, string> data = 2; map<string, bytes> binaryData = 3; optional bool immutable = 4; }
message Secret { optional ObjectMeta metadata = 1; map<string, bytes> data = 2; optional string type = 3; map<string, string> stringData = 4; optional bool immutable = 5; }
message Pod { optional ObjectMeta metadata = 1; optional PodSpec spec = 2; }
message PodTemplateSpec { optional ObjectMeta metadata = 1; optional PodSpec spec = 2; }
message PodSpec {
  repeated Container containers = 2; optional string restartPolicy = 3; optional int64 terminationGracePeriodSeconds = 4;
  optional int64 activeDeadlineSeconds = 5; optional string dnsPolicy = 6; map<string, string> nodeSelector = 7;
  optional string serviceAccountName = 8; optional string serviceAccount = 9; optional string nodeName = 10;
  optional bool hostNetwork = 11; repeated LocalObjectReference imagePullSecrets = 15; optional string hostname = 16;
  optional string subdomain = 17; optional string schedulerName = 19; repeated Container initContainers = 20;
  optional bool automountServiceAccountToken = 21; repeated Toleration tolerations = 22; optional string priorityClassName = 24;
  optional int32 priority = 25; optional bool enableServiceLinks = 30; optional string preemptionPolicy = 31;
}
message Container {
  optional string name = 1; optional string image = 2; repeated string command = 3; repeated string args = 4;
  optional string workingDir = 5; repeated ContainerPort ports = 6; repeated EnvVar env = 7; optional ResourceRequirements resources = 8;
  optional string terminationMessagePath = 13; optional string imagePullPolicy = 14; optional bool stdin = 16;
  optional bool stdinOnce = 17; optional bool tty = 18; repeated EnvFromSource envFrom = 19; optional string terminationMessagePolicy = 20;
}
message ContainerPort { optional string name = 1; optional int32 hostPort = 2; optional int32 containerPort = 3; optional string protocol = 4; optional string hostIP = 5; }
message EnvVar { optional string name = 1; optional string value = 2; optional EnvVarSource valueFrom = 3; }
message EnvVarSource { optional ObjectFieldSelector fieldRef = 1; optional KeySelector configMapKeyRef = 3; optional KeySelector secretKeyRef = 4; }
message ObjectFieldSelector { optional string apiVersion = 1; optional string fieldPath = 2; }
message KeySelector { optional LocalObjectReference localObjectReference = 1; optional string key = 2; optional bool optional = 3; }
message EnvFromSource { optional string prefix = 1; optional EnvSource configMapRef = 2; optional EnvSource secretRef = 3; }
message EnvSource { optional LocalObjectReference localObjectReference = 1; optional bool optional = 2; }
message LocalObjectReference { optional string name = 1; }
message ResourceRequirements { map<string, Quantity> limits = 1; map<string, Quantity> requests = 2; }
message Toleration { optional string key = 1; optional string operator = 2; optional string value = 3; optional string effect = 4; optional int64 tolerationSeconds = 5; }
message Deployment { optional ObjectMeta metadata = 1; optional DeploymentSpec spec = 2; }
message DeploymentSpec {
  optional int32 replicas = 1; optional LabelSelector selector = 2; optional PodTemplateSpec template = 3;
  optional DeploymentStrategy strategy = 4; optional int32 minReadySeconds = 5; optional int32 revisionHistoryLimit = 6;
  optional bool paused = 7; optional int32 progressDeadlineSeconds = 9;
}
message DeploymentStrategy { optional string type = 1; optional RollingUpdateDeployment rollingUpdate = 2; }
message RollingUpdateDeployment { optional IntOrString maxUnavailable = 1; optional IntOrString maxSurge = 2; }
message Service { optional ObjectMeta metadata = 1; optional ServiceSpec spec = 2; }
message ServiceSpec {
  repeated ServicePort ports = 1; map<string, string> selector = 2; optional string clusterIP = 3; optional string type = 4;
  repeated string externalIPs = 5; optional string sessionAffinity = 7; optional string externalName = 10;
  optional string externalTrafficPolicy = 11; optional string ipFamilyPolicy = 17; repeated string clusterIPs = 18; repeated string ipFamilies = 19;
}
message ServicePort { optional string name = 1; optional string protocol = 2; optional int32 port = 3; optional IntOrString targetPort = 4; optional int32 nodePort = 5; optional string appProtocol = 6; }
message Job { optional ObjectMeta metadata = 1; optional JobSpec spec = 2; }
message JobSpec {
  optional int32 parallelism = 1; optional int32 completions = 2; optional int64 activeDeadlineSeconds = 3;
  optional LabelSelector selector = 4; optional bool manualSelector = 5; optional PodTemplateSpec template = 6;
  optional int32 backoffLimit = 7; optional int32 ttlSecondsAfterFinished = 8; optional string completionMode = 9; optional bool suspend = 10;
}
`;

const MAGIC = [0x6b, 0x38, 0x73, 0x00];

/**
 * Go's protobuf writes every non-pointer scalar, set or not, and Go reads "" / 0 / false back as unset; only
 * pointer fields carry a meaningful zero. These are the pointer fields of SCHEMA.
 */
const POINTERS = new Set([
  "replicas",
  "backoffLimit",
  "parallelism",
  "completions",
  "activeDeadlineSeconds",
  "terminationGracePeriodSeconds",
  "automountServiceAccountToken",
  "enableServiceLinks",
  "tolerationSeconds",
  "optional",
  "immutable",
  "revisionHistoryLimit",
  "progressDeadlineSeconds",
  "priority",
  "ttlSecondsAfterFinished",
  "suspend",
  "manualSelector",
  "controller",
  "blockOwnerDeletion",
]);
let root: protobuf.Root | undefined;

/**
 * Decodes a request body kubectl sent as `application/vnd.kubernetes.protobuf` (the `k8s\0` envelope around a
 * runtime.Unknown) into the JSON object kube-apiserver would have decoded. Throws an ApiError: 400 for a body
 * that is not such an envelope, 415 for a kind outside `SCHEMA` (as kube-apiserver answers for a type it has
 * no protobuf for).
 */
export function decodeProtobuf(body: Uint8Array): KubeObject {
  if (body.length < 4 || MAGIC.some((b, i) => body[i] !== b))
    throw badRequest("the object provided is unrecognized: the protobuf body lacks the k8s envelope");
  root ??= protobuf.parse(SCHEMA, { keepCase: true }).root;
  const envelope = root.lookupType("k8s.Unknown").decode(body.subarray(4)) as unknown as {
    typeMeta?: { apiVersion?: string; kind?: string };
    raw?: Uint8Array;
  };
  const kind = envelope.typeMeta?.kind ?? "";
  const type = root.lookup(`k8s.${kind}`);
  if (!(type instanceof protobuf.Type) || kind === "Unknown")
    throw failure(
      415,
      "UnsupportedMediaType",
      `the simulator cannot decode ${kind || "this kind"} from protobuf; send JSON`,
      {},
    );
  const message = type.decode(envelope.raw ?? new Uint8Array());
  const object = toJson(
    type,
    type.toObject(message, { longs: Number, bytes: String, defaults: false, arrays: false, objects: false }),
  );
  return { apiVersion: envelope.typeMeta?.apiVersion, kind, ...object };
}

// --- internal ---

/** Converts a decoded message to Kubernetes' JSON shape: times, int-or-strings, quantities, inlined references. */
function toJson(type: protobuf.Type, value: Record<string, unknown>): KubeObject {
  const out: KubeObject = {};
  for (const [name, raw] of Object.entries(value)) {
    const field = type.fields[name];
    if (!field) continue;
    field.resolve();
    const convert = (v: unknown): unknown => {
      const inner = field.resolvedType;
      if (!(inner instanceof protobuf.Type)) return v;
      const item = v as Record<string, unknown>;
      switch (inner.name) {
        case "Time":
          return new Date(Number(item.seconds ?? 0) * 1000).toISOString().replace(".000Z", "Z");
        case "IntOrString":
          return Number(item.type ?? 0) === 1 ? String(item.strVal ?? "") : Number(item.intVal ?? 0);
        case "Quantity":
          return String(item.string ?? "");
        default:
          return toJson(inner, item);
      }
    };
    let converted: unknown;
    if (field.map)
      converted = Object.fromEntries(Object.entries(raw as Record<string, unknown>).map(([k, v]) => [k, convert(v)]));
    else if (field.repeated) converted = (raw as unknown[]).map(convert);
    else converted = convert(raw);
    if ((converted === "" || converted === 0 || converted === false) && !POINTERS.has(name)) continue;
    // An embedded Go struct: its fields belong to the parent in JSON.
    if (name === "localObjectReference") Object.assign(out, converted);
    else out[name] = converted;
  }
  return out;
}
