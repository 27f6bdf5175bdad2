import type { KubeObject } from "../model/inventory.ts";

/** Longest string kept from an object, characters (the kubelet's own cap on a termination message is 4,096 bytes). */
export const MAX_TEXT = 4_096;
/** Deepest nesting kept; deeper values are dropped (no built-in kind mon reads nests this deep). */
const MAX_DEPTH = 24;
/** Most items kept of one list (containers, conditions, env, ports …). */
export const MAX_ITEMS = 2_000;

/** Why an object is not admitted into the Inventory (a closed list; the log names the object). */
export type UnreadableReason = "not_an_object" | "no_name";

/**
 * The Inventory's door (issue 19): every object from the API server is admitted in the narrow shape mon's
 * detectors read, so one odd object cannot stop detection of the others. In one walk, linear in the object's
 * size: strings are cut at MAX_TEXT characters and made well-formed (a lone surrogate becomes U+FFFD), lists
 * at MAX_ITEMS items, nesting at 24 levels; a field mon reads as an object, a list, a string or a number that
 * holds something else is dropped (`spec: null`, `labels: null`, `containerStatuses: {…}`, a numeric
 * `phase`, a condition without a string `type`), and labels and annotations keep string values only.
 * Returns the admitted object, or why it is unreadable: not an object, or without a string `metadata.name`.
 */
export function admit(object: unknown): { object: KubeObject } | { unreadable: UnreadableReason } {
  if (!isPlainObject(object)) return { unreadable: "not_an_object" };
  const clean = cleanValue(object, 0) as Record<string, unknown>;
  const metadata = clean.metadata;
  if (!isPlainObject(metadata) || typeof metadata.name !== "string" || metadata.name === "")
    return { unreadable: "no_name" };
  return { object: clean as KubeObject };
}

// --- internal ---

/** Fields read as objects wherever they appear. */
const OBJECTS = new Set([
  "metadata",
  "spec",
  "status",
  "selector",
  "template",
  "state",
  "lastState",
  "waiting",
  "running",
  "terminated",
  "resources",
  "limits",
  "requests",
  "capacity",
  "allocatable",
  "nodeInfo",
  "strategy",
  "rollingUpdate",
  "podSelector",
  "namespaceSelector",
  "involvedObject",
  "source",
  "series",
  "readinessProbe",
  "livenessProbe",
  "startupProbe",
  "securityContext",
  "daemonEndpoints",
  "kubeletEndpoint",
  "jobTemplate",
  "claimRef",
]);
/** Fields read as lists of objects. */
const OBJECT_LISTS = new Set([
  "conditions",
  "containers",
  "initContainers",
  "ephemeralContainers",
  "containerStatuses",
  "initContainerStatuses",
  "ephemeralContainerStatuses",
  "ownerReferences",
  "addresses",
  "ports",
  "env",
  "envFrom",
  "volumes",
  "volumeMounts",
  "taints",
  "tolerations",
  "ingress",
  "egress",
  "endpoints",
  "subsets",
  "rules",
  "matchExpressions",
  "imagePullSecrets",
  "parentRefs",
  "backendRefs",
  "images",
  "podIPs",
  "hostIPs",
  "managedFields",
]);
/** Fields read as lists of strings. */
const STRING_LISTS = new Set(["finalizers", "hostnames", "command", "args", "names", "accessModes", "values"]);
/** Fields read as strings. */
const STRINGS = new Set([
  "name",
  "namespace",
  "uid",
  "resourceVersion",
  "kind",
  "apiVersion",
  "phase",
  "reason",
  "message",
  "type",
  "image",
  "imageID",
  "nodeName",
  "podIP",
  "hostIP",
  "creationTimestamp",
  "deletionTimestamp",
  "lastTransitionTime",
  "lastTimestamp",
  "firstTimestamp",
  "eventTime",
  "startedAt",
  "finishedAt",
  "schedulerName",
  "serviceAccountName",
  "storageClassName",
  "volumeName",
  "clusterIP",
  "address",
]);
/** Fields read as numbers. */
const NUMBERS = new Set([
  "restartCount",
  "exitCode",
  "replicas",
  "readyReplicas",
  "availableReplicas",
  "updatedReplicas",
  "unavailableReplicas",
  "currentReplicas",
  "observedGeneration",
  "generation",
  "count",
  "failed",
  "succeeded",
  "backoffLimit",
  "desiredNumberScheduled",
  "currentNumberScheduled",
  "numberReady",
  "numberAvailable",
  "numberUnavailable",
  "numberMisscheduled",
  "updatedNumberScheduled",
  "containerPort",
  "hostPort",
  "terminationGracePeriodSeconds",
  "deletionGracePeriodSeconds",
]);
/** String maps: only string values are kept. */
const STRING_MAPS = new Set(["labels", "annotations", "matchLabels", "nodeSelector"]);

function cleanValue(value: unknown, depth: number): unknown {
  if (typeof value === "string") return cleanText(value);
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return undefined;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value.length > MAX_ITEMS ? value.slice(0, MAX_ITEMS) : value) {
      const clean = cleanValue(item, depth + 1);
      if (clean !== undefined) out.push(clean);
    }
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[k];
    if (STRING_MAPS.has(k)) {
      if (isPlainObject(v)) out[k] = stringMap(v);
      continue;
    }
    if (OBJECTS.has(k) && !isPlainObject(v) && !(k === "status" && typeof v === "string")) continue;
    if (OBJECT_LISTS.has(k)) {
      // An EndpointSlice endpoint's `conditions` is an object ({ready, serving, terminating}).
      if (k === "conditions" && isPlainObject(v)) {
        out[k] = cleanValue(v, depth + 1);
        continue;
      }
      if (!Array.isArray(v)) continue;
      // EndpointSlice endpoints list their addresses as strings, a Node's status as objects.
      out[k] = (cleanValue(v, depth + 1) as unknown[]).filter((item) =>
        isPlainObject(item)
          ? k !== "conditions" || validCondition(item)
          : k === "addresses" && typeof item === "string",
      );
      continue;
    }
    if (STRING_LISTS.has(k)) {
      if (!Array.isArray(v)) continue;
      out[k] = (cleanValue(v, depth + 1) as unknown[]).filter((item) => typeof item === "string");
      continue;
    }
    if (STRINGS.has(k) && typeof v !== "string") continue;
    if (NUMBERS.has(k) && (typeof v !== "number" || !Number.isFinite(v))) continue;
    const clean = cleanValue(v, depth + 1);
    if (clean !== undefined) out[k] = clean;
  }
  return out;
}

function validCondition(condition: Record<string, unknown>): boolean {
  return typeof condition.type === "string" && typeof condition.status === "string";
}

function stringMap(map: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  let n = 0;
  for (const [k, v] of Object.entries(map)) {
    if (typeof v !== "string") continue;
    if (++n > MAX_ITEMS) break;
    out[k] = cleanText(v);
  }
  return out;
}

function cleanText(text: string): string {
  const cut = text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
  return LONE_SURROGATE.test(cut) ? cut.replace(LONE_SURROGATE_G, "\uFFFD") : cut;
}

const LONE = "[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]";
const LONE_SURROGATE = new RegExp(LONE);
const LONE_SURROGATE_G = new RegExp(LONE, "g");

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
