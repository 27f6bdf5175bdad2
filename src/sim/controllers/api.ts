import type { TypeRegistry, ResourceType } from "../resources.ts";
import { type KubeObject, type ObjectStore, timestamp } from "../store.ts";

/** The kinds the controllers read and write, by kind name (core/v1 Events, not events.k8s.io). */
const KINDS: Record<string, string> = {
  Pod: "v1",
  Node: "v1",
  Service: "v1",
  Event: "v1",
  ConfigMap: "v1",
  Secret: "v1",
  PersistentVolumeClaim: "v1",
  Deployment: "apps/v1",
  ReplicaSet: "apps/v1",
  StatefulSet: "apps/v1",
  DaemonSet: "apps/v1",
  ControllerRevision: "apps/v1",
  Job: "batch/v1",
  CronJob: "batch/v1",
  EndpointSlice: "discovery.k8s.io/v1",
  Namespace: "v1",
  Lease: "coordination.k8s.io/v1",
};

/**
 * What a controller sees of the cluster: the simulator's store by kind, with the writes the real controllers
 * make (create, replace, status, graceful delete). Writes that change nothing commit nothing, so a controller
 * that writes its desired state on every sync converges.
 */
export interface ControllerApi {
  /** Epoch ms on the simulator's clock. */
  now(): number;
  list(kind: string, namespace?: string): KubeObject[];
  get(kind: string, namespace: string | undefined, name: string): KubeObject | undefined;
  /** Creates; `manager` is the field manager its write is stamped with (`kube-controller-manager` …). */
  create(kind: string, namespace: string | undefined, object: KubeObject, manager?: string): KubeObject;
  /** Replaces the object's spec and metadata (not its status). */
  update(object: KubeObject): KubeObject;
  /** Replaces the object's status. */
  setStatus(object: KubeObject, status: KubeObject): KubeObject;
  /** Deletes; pods on a node get their grace period (default the pod's own) unless `graceSeconds` is 0. */
  remove(kind: string, namespace: string | undefined, name: string, graceSeconds?: number): void;
  /**
   * Records an Event about `object` as the kubelet and controllers do: a repeat of the same reason and
   * message raises `count` and `lastTimestamp` instead of adding an Event.
   */
  event(object: KubeObject, type: "Normal" | "Warning", reason: string, message: string, source: string): void;
  /** Every namespaced object of `namespace`, of every served type (the namespace controller's discovery). */
  contentOf(namespace: string): KubeObject[];
  /** Deletes any stored object by its apiVersion and kind (pods on a node with their grace period). */
  removeObject(object: KubeObject): void;
}

/** A ControllerApi over `store`; `now` is the simulator's clock (epoch ms). */
export function controllerApi(store: ObjectStore, registry: TypeRegistry, now: () => number): ControllerApi {
  // Event names are `<object>.<hex>` as the recorder writes them; a counter keeps two in one millisecond apart.
  let eventSerial = 0;
  const typeOf = (kind: string): ResourceType => {
    const found = registry.findByKind(KINDS[kind] ?? "v1", kind);
    if (!found) throw new Error(`the simulator does not serve ${kind}`);
    return found;
  };
  const api: ControllerApi = {
    now,
    list: (kind, namespace) => store.list(typeOf(kind), namespace),
    get(kind, namespace, name) {
      try {
        return store.get(typeOf(kind), namespace, name);
      } catch {
        return undefined;
      }
    },
    create: (kind, namespace, object, manager) =>
      store.create(typeOf(kind), namespace, object, manager ? { manager } : {}),
    update: (object) =>
      store.update(typeOf(object.kind), object.metadata.namespace, object.metadata.name, {
        ...object,
        metadata: { ...object.metadata, resourceVersion: undefined },
      }),
    setStatus: (object, status) =>
      store.update(typeOf(object.kind), object.metadata.namespace, object.metadata.name, { status }, "status"),
    remove(kind, namespace, name, graceSeconds) {
      try {
        store.delete(
          typeOf(kind),
          namespace,
          name,
          graceSeconds === undefined ? {} : { gracePeriodSeconds: graceSeconds },
        );
      } catch {
        // already gone
      }
    },
    contentOf: (namespace) => store.contentOf(namespace),
    removeObject(object) {
      const type = registry.findByKind(object.apiVersion, object.kind);
      if (!type) return;
      try {
        store.delete(type, object.metadata.namespace, object.metadata.name);
      } catch {
        // already gone
      }
    },
    event(object, type, reason, message, source) {
      const namespace = object.metadata.namespace ?? "default";
      // A namespace being deleted takes no new Events; the recorders drop them, as real ones do.
      if (api.get("Namespace", undefined, namespace)?.metadata.deletionTimestamp) return;
      const at = timestamp(now());
      const same = store
        .list(typeOf("Event"), namespace)
        .find((e) => e.involvedObject?.uid === object.metadata.uid && e.reason === reason && e.message === message);
      if (same) {
        store.update(typeOf("Event"), namespace, same.metadata.name, {
          ...same,
          metadata: { ...same.metadata, resourceVersion: undefined },
          count: (same.count ?? 1) + 1,
          lastTimestamp: at,
        });
        return;
      }
      store.create(typeOf("Event"), namespace, {
        metadata: {
          name: `${object.metadata.name}.${now().toString(16)}${(eventSerial++).toString(16).padStart(4, "0")}`,
        },
        involvedObject: {
          kind: object.kind,
          namespace: object.metadata.namespace,
          name: object.metadata.name,
          uid: object.metadata.uid,
          apiVersion: object.apiVersion,
          resourceVersion: object.metadata.resourceVersion,
          ...(object.kind === "Pod" ? { fieldPath: `spec.containers{${object.spec?.containers?.[0]?.name}}` } : {}),
        },
        reason,
        message,
        source: { component: source, ...(object.spec?.nodeName ? { host: object.spec.nodeName } : {}) },
        firstTimestamp: at,
        lastTimestamp: at,
        count: 1,
        type,
        eventTime: null,
        reportingComponent: source,
        reportingInstance: object.spec?.nodeName ?? "",
      });
    },
  };
  return api;
}

/** The owner reference a controller puts on what it creates (`controller: true`, `blockOwnerDeletion: true`). */
export function controllerRef(owner: KubeObject): KubeObject {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The objects in `all` whose controller is `owner` (by uid). */
export function ownedBy(all: readonly KubeObject[], owner: KubeObject): KubeObject[] {
  return all.filter((o) =>
    (o.metadata.ownerReferences ?? []).some((r: KubeObject) => r.controller && r.uid === owner.metadata.uid),
  );
}

/**
 * A condition list with `condition` set; its lastTransitionTime moves only when its status changes. With
 * `updateTime` (Deployment conditions) lastUpdateTime moves when the status or reason changes.
 */
export function withCondition(
  conditions: readonly KubeObject[] | undefined,
  condition: KubeObject,
  at: number,
  updateTime = false,
): KubeObject[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === condition.type);
  const before = i >= 0 ? list[i] : undefined;
  const sameStatus = before?.status === condition.status;
  const next: KubeObject = { ...condition };
  if (updateTime)
    next.lastUpdateTime = sameStatus && before?.reason === condition.reason ? before?.lastUpdateTime : timestamp(at);
  next.lastTransitionTime = sameStatus && before?.lastTransitionTime ? before.lastTransitionTime : timestamp(at);
  if (i >= 0) list[i] = next;
  else list.push(next);
  return list;
}

/** True when the pod's Ready condition is True. */
export function podReady(pod: KubeObject): boolean {
  return (pod.status?.conditions ?? []).some((c: KubeObject) => c.type === "Ready" && c.status === "True");
}

/** True while the pod counts for its controller: not being deleted and not finished. */
export function podActive(pod: KubeObject): boolean {
  return !pod.metadata.deletionTimestamp && pod.status?.phase !== "Succeeded" && pod.status?.phase !== "Failed";
}

/** True when a label selector (`matchLabels`, `matchExpressions`) selects `labels`. */
export function selects(selector: KubeObject | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector) return false;
  const have = labels ?? {};
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (have[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const value = have[e.key];
    if (e.operator === "In" && !(value !== undefined && e.values?.includes(value))) return false;
    if (e.operator === "NotIn" && value !== undefined && e.values?.includes(value)) return false;
    if (e.operator === "Exists" && value === undefined) return false;
    if (e.operator === "DoesNotExist" && value !== undefined) return false;
  }
  return Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length > 0;
}

/** A stable 10-character hash of `value` in the alphabet the controllers use for names (pod-template-hash). */
export function nameHash(value: unknown, length = 10): string {
  const text = JSON.stringify(value);
  let h = 2166136261n;
  for (let i = 0; i < text.length; i++) h = BigInt.asUintN(64, (h ^ BigInt(text.charCodeAt(i))) * 1099511628211n);
  const alphabet = "bcdfghjklmnpqrstvwxz2456789";
  let out = "";
  for (let i = 0; i < length; i++) {
    out += alphabet[Number(h % 27n)];
    h /= 27n;
    if (h === 0n) h = 1469598103934665603n;
  }
  return out;
}

/**
 * The ControllerRevision of a StatefulSet's or DaemonSet's pod template, as their controllers keep one per
 * template (`<owner>-<hash>`, `data.spec.template`, `revision` one more than the owner's last): created when
 * the template is new. Returns its name.
 */
export function ensureRevision(api: ControllerApi, owner: KubeObject, template: KubeObject, hash: string): string {
  const ns = owner.metadata.namespace;
  const name = `${owner.metadata.name}-${hash}`;
  if (api.get("ControllerRevision", ns, name)) return name;
  const mine = ownedBy(api.list("ControllerRevision", ns), owner);
  const revision = Math.max(0, ...mine.map((r) => Number(r.revision ?? 0))) + 1;
  api.create("ControllerRevision", ns, {
    apiVersion: "apps/v1",
    kind: "ControllerRevision",
    metadata: { name, namespace: ns, ownerReferences: [controllerRef(owner)] },
    data: { spec: { template } },
    revision,
  });
  return name;
}
