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
 * The object is cleaned in place (an informer's freshly parsed object is mon's own): a well-formed object
 * is admitted as it is, with nothing allocated. Returns the admitted object, or why it is unreadable: not
 * an object, or without a string `metadata.name`.
 */
export function admit(object: unknown): { object: KubeObject } | { unreadable: UnreadableReason } {
  if (!isPlainObject(object)) return { unreadable: "not_an_object" };
  const clean = (ADMISSIBLE.has(object) ? object : cleanValue(object, 0)) as Record<string, unknown>;
  const metadata = clean.metadata;
  if (!isPlainObject(metadata) || typeof metadata.name !== "string" || metadata.name === "")
    return { unreadable: "no_name" };
  return { object: clean as KubeObject };
}

/** Objects built to the door's rules already (a protobuf decoder's, issue 55): only their name is checked. */
const ADMISSIBLE = new WeakSet<object>();

/**
 * Marks `object` as one the door would admit unchanged: built from a typed schema whose every field the door
 * has a rule for has the type the rule reads (kube/protobuf/decode.ts checks this when it plans a kind), no
 * `null` where the door would drop one, no string past MAX_TEXT, no list or map past MAX_ITEMS, and nested far
 * less deep than the door allows. Returns `object`.
 */
export function markAdmissible<T extends object>(object: T): T {
  ADMISSIBLE.add(object);
  return object;
}

/** Whether `object` was marked by markAdmissible. */
export function isAdmissible(object: object): boolean {
  return ADMISSIBLE.has(object);
}

/** What the door reads a field of this name as, wherever it appears; undefined for a field it has no rule for. */
export function doorRule(
  name: string,
): "stringMap" | "object" | "objectList" | "stringList" | "string" | "number" | undefined {
  switch (RULES.get(name)) {
    case Rule.StringMap:
      return "stringMap";
    case Rule.Object:
      return "object";
    case Rule.ObjectList:
      return "objectList";
    case Rule.StringList:
      return "stringList";
    case Rule.String:
      return "string";
    case Rule.Number:
      return "number";
    default:
      return undefined;
  }
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

/**
 * `value` cleaned in place (the informer's freshly parsed object is ours): the same object or array when
 * nothing in it had to change, so admitting a well-formed object allocates nothing; undefined to drop it.
 */
function cleanValue(value: unknown, depth: number): unknown {
  if (typeof value === "string") return cleanText(value);
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return undefined;
  // A null entry is never a Kubernetes list item (`spec.tls: [null]`): readers would throw on it (issue 30).
  if (Array.isArray(value)) return cleanList(value, depth, (item) => item !== null);
  const object = value as Record<string, unknown>;
  for (const k in object) {
    const v = object[k];
    const clean = cleanField(k, v, depth);
    if (clean === undefined) delete object[k];
    else if (clean !== v) object[k] = clean;
  }
  return object;
}

/** The keys of an EndpointSlice endpoint's `conditions` object; any other object there is not conditions. */
const ENDPOINT_CONDITIONS = new Set(["ready", "serving", "terminating"]);

/** What mon reads each known field as: one lookup per key. */
const Rule = { StringMap: 1, Object: 2, ObjectList: 3, StringList: 4, String: 5, Number: 6 } as const;
type Rule = (typeof Rule)[keyof typeof Rule];
const RULES = new Map<string, Rule>([
  ...[...STRING_MAPS].map((k) => [k, Rule.StringMap] as const),
  ...[...OBJECTS].map((k) => [k, Rule.Object] as const),
  ...[...OBJECT_LISTS].map((k) => [k, Rule.ObjectList] as const),
  ...[...STRING_LISTS].map((k) => [k, Rule.StringList] as const),
  ...[...STRINGS].map((k) => [k, Rule.String] as const),
  ...[...NUMBERS].map((k) => [k, Rule.Number] as const),
]);

/** The field `k` of an object, cleaned by what mon reads it as; undefined to drop it. */
function cleanField(k: string, v: unknown, depth: number): unknown {
  const rule = RULES.get(k);
  if (rule === undefined) return cleanValue(v, depth + 1);
  if (rule === Rule.String) return typeof v === "string" ? cleanText(v) : undefined;
  if (rule === Rule.Number) return typeof v === "number" && Number.isFinite(v) ? v : undefined;
  if (rule === Rule.StringMap) return isPlainObject(v) ? stringMap(v) : undefined;
  if (rule === Rule.Object && !isPlainObject(v) && !(k === "status" && typeof v === "string")) return undefined;
  if (rule === Rule.ObjectList) {
    // An EndpointSlice endpoint's `conditions` is an object ({ready, serving, terminating}).
    if (k === "conditions" && isPlainObject(v))
      return Object.keys(v).every((c) => ENDPOINT_CONDITIONS.has(c)) ? cleanValue(v, depth + 1) : undefined;
    if (!Array.isArray(v)) return undefined;
    // EndpointSlice endpoints list their addresses as strings, a Node's status as objects.
    return cleanList(v, depth, (item) =>
      isPlainObject(item) ? k !== "conditions" || validCondition(item) : k === "addresses" && typeof item === "string",
    );
  }
  if (STRING_LISTS.has(k))
    return Array.isArray(v) ? cleanList(v, depth, (item) => typeof item === "string") : undefined;
  if (STRINGS.has(k) && typeof v !== "string") return undefined;
  if (NUMBERS.has(k) && (typeof v !== "number" || !Number.isFinite(v))) return undefined;
  return cleanValue(v, depth + 1);
}

/** A list cleaned item by item and filtered by `keep`: the same array when nothing changed. */
function cleanList(list: unknown[], depth: number, keep: (item: unknown) => boolean): unknown[] {
  let out: unknown[] | undefined = list.length > MAX_ITEMS ? [] : undefined;
  const n = Math.min(list.length, MAX_ITEMS);
  for (let i = 0; i < n; i++) {
    const item = list[i];
    const clean = cleanValue(item, depth + 1);
    const kept = clean !== undefined && keep(clean);
    if (!out && (!kept || clean !== item)) out = list.slice(0, i);
    if (out && kept) out.push(clean);
  }
  return out ?? list;
}

function validCondition(condition: Record<string, unknown>): boolean {
  return typeof condition.type === "string" && typeof condition.status === "string";
}

/** Only the string values (the first MAX_ITEMS), each cleaned: the same map when nothing had to change. */
function stringMap(map: Record<string, unknown>): Record<string, string> {
  let n = 0;
  for (const k in map) {
    const v = map[k];
    if (typeof v !== "string" || ++n > MAX_ITEMS || cleanText(v) !== v) return cleanedMap(map);
  }
  return map as Record<string, string>;
}

function cleanedMap(map: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  let n = 0;
  for (const k in map) {
    const v = map[k];
    if (typeof v === "string" && ++n <= MAX_ITEMS) out[k] = cleanText(v);
  }
  return out;
}

function cleanText(text: string): string {
  const cut = text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
  return isWellFormed(cut) ? cut : cut.replace(LONE_SURROGATE_G, "\uFFFD");
}

/** The runtime's own check when it has one (ES2024 `String.prototype.isWellFormed`), else the pattern. */
const nativeWellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed;
function isWellFormed(text: string): boolean {
  return nativeWellFormed ? nativeWellFormed.call(text) : !LONE_SURROGATE.test(text);
}

const LONE = "[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]";
const LONE_SURROGATE = new RegExp(LONE);
const LONE_SURROGATE_G = new RegExp(LONE, "g");

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
