import { cronJobOfRunName } from "../model/cronjob-run.ts";
import type { InventoryChange, InventoryView, KubeObject } from "../model/inventory.ts";
import type { Event, Kinds, Node, ObjectLike, Pod, Service } from "../model/kube.ts";
import { admit, type UnreadableReason } from "./admit.ts";
import { project } from "./project.ts";
import { sameKept } from "./same.ts";

/**
 * The indexed object cache every detector reads (ARCHITECTURE.md kube/): by kind and namespace/name,
 * by uid (for owner chains) and pods by node. Fed by informers; it keeps nothing of an object it no longer
 * holds (no list of changed keys that would grow with every name ever seen).
 */
export class Inventory implements InventoryView {
  private readonly byKind = new Map<string, Map<string, KubeObject>>();
  /** Each kind's objects as one array, made when first listed after a change of the kind. */
  private readonly lists = new Map<string, readonly ObjectLike[]>();
  /** Each kind's objects by namespace, made in one sweep when first asked for after a change of the kind. */
  private readonly namespaced = new Map<string, ReadonlyMap<string, readonly ObjectLike[]>>();
  private readonly byUid = new Map<string, KubeObject>();
  private readonly podsByNode = new Map<string, Map<string, KubeObject>>();
  /** Events by the uid of the object they are about (`involvedObject.uid`), each by its namespace/name. */
  private readonly eventsByObject = new Map<string, Map<string, KubeObject>>();
  private readonly byIp = new Map<string, Map<string, { kind: string; label: string }>>();
  private readonly watched = new Set<string>();
  private readonly unreadable = new Map<string, UnreadableReason>();
  private readonly listeners = new Set<(change: InventoryChange) => void>();

  /**
   * `whole: true` keeps objects as served instead of projecting them to their kind's declared shape: only the
   * test that proves the projection changes no finding, message or explain answer uses it (issue 42).
   */
  constructor(private readonly options: { readonly whole?: boolean } = {}) {}

  /**
   * Calls `listener` with every later change, synchronously as it is applied; returns the unsubscribe.
   * Nothing is kept for a subscriber: what it needs of the changes it keeps itself, bounded by its own use.
   */
  subscribe(listener: (change: InventoryChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Records that a kind is watched and synced (see InventoryView.watches). */
  markWatched(kind: string): void {
    if (this.watched.has(kind)) return;
    this.watched.add(kind);
    this.emit({ kind, watched: true });
  }

  /** Forgets a kind: its objects and that it is watched (a kind dropped to bound memory). */
  forget(kind: string): void {
    if (this.watched.delete(kind)) this.emit({ kind, watched: true });
    const map = this.byKind.get(kind);
    if (!map) return;
    for (const object of [...map.values()]) this.apply(kind, "DELETED", object);
    this.byKind.delete(kind);
    this.lists.delete(kind);
    this.namespaced.delete(kind);
  }

  watches(kind: string): boolean {
    return this.watched.has(kind);
  }

  /**
   * Objects not admitted (kube/admit.ts), by `Kind/namespace/name`, with why: detectors do not see them until
   * a change makes them readable. Bounded by the objects of the cluster.
   */
  unreadableObjects(): ReadonlyMap<string, UnreadableReason> {
    return this.unreadable;
  }

  /**
   * Applies one informer event, through the door (kube/admit.ts): an added or modified object is kept in the
   * narrow shape detectors read; one that cannot be read at all (no name) is not kept and is listed in
   * `unreadableObjects()`; the version already kept (same uid and resourceVersion) changes nothing and tells no
   * listener, and neither does a version that differs from it in nothing kept (kube/same.ts: the kept object
   * only takes its resourceVersion and writers). Returns the changed key `Kind/namespace/name`.
   */
  apply(kind: string, type: "ADDED" | "MODIFIED" | "DELETED", raw: KubeObject): string {
    let object = raw;
    const rawKey = keyOf(raw);
    const name = `${kind}/${rawKey}`;
    // The version already kept (a relist, a watch reopened from an older resourceVersion): no new object, no
    // index touched, no change told (issue 42).
    const rv = raw?.metadata?.resourceVersion;
    if (type !== "DELETED" && typeof rv === "string" && rv !== "" && !this.unreadable.has(name)) {
      const kept = this.byKind.get(kind)?.get(rawKey);
      if (kept?.metadata?.resourceVersion === rv && kept.metadata.uid === raw.metadata?.uid) return name;
    }
    if (type !== "DELETED") {
      const admitted = admit(this.options.whole ? raw : project(kind, raw));
      // Unreadable means nameless: there is no earlier version of it to remove.
      if ("unreadable" in admitted) {
        this.unreadable.set(name, admitted.unreadable);
        return name;
      } else {
        object = admitted.object;
        this.unreadable.delete(name);
      }
    } else this.unreadable.delete(name);
    const key = objectKey(object);
    const map = this.kindMap(kind);
    const previous = map.get(key);
    const next = type === "DELETED" ? undefined : object;
    // A version that changed nothing mon keeps (a status write of unkept fields): the kept object takes its
    // resourceVersion, nothing else is touched and no listener is told (issue 42).
    if (next && previous && previous.metadata?.uid === next.metadata?.uid && sameKept(previous, next)) {
      refresh(previous, next);
      return `${kind}/${key}`;
    }
    this.lists.delete(kind);
    this.namespaced.delete(kind);
    if (next) map.set(key, next);
    else map.delete(key);
    this.reindex(kind, key, previous, next);
    if (this.listeners.size > 0 && (previous || next)) this.emit({ kind, previous, next });
    return `${kind}/${key}`;
  }

  /** Number of cached objects of each kind. */
  counts(): Record<string, number> {
    return Object.fromEntries([...this.byKind].map(([kind, map]) => [kind, map.size]));
  }

  // The typed overloads are where served JSON becomes a typed object of its kind (model/kube.ts).
  list<K extends keyof Kinds>(kind: K): readonly Kinds[K][];
  list(kind: string): readonly ObjectLike[];
  list(kind: string): readonly ObjectLike[] {
    // One array per kind until it changes: a pass's detectors list the same kinds many times (issue 33: no
    // whole-kind copies per pass). Readonly: callers never change it.
    let listed = this.lists.get(kind);
    if (!listed) {
      listed = [...(this.byKind.get(kind)?.values() ?? [])] as ObjectLike[];
      this.lists.set(kind, listed);
    }
    return listed;
  }

  listIn<K extends keyof Kinds>(kind: K, namespace: string): readonly Kinds[K][];
  listIn(kind: string, namespace: string): readonly ObjectLike[];
  listIn(kind: string, namespace: string): readonly ObjectLike[] {
    let byNamespace = this.namespaced.get(kind);
    if (!byNamespace) {
      const sweep = new Map<string, ObjectLike[]>();
      for (const o of this.list(kind)) {
        const ns = o.metadata.namespace ?? "";
        let objects = sweep.get(ns);
        if (!objects) sweep.set(ns, (objects = []));
        objects.push(o);
      }
      this.namespaced.set(kind, (byNamespace = sweep));
    }
    return byNamespace.get(namespace) ?? NONE;
  }

  get<K extends keyof Kinds>(kind: K, namespace: string | undefined, name: string): Kinds[K] | undefined;
  get(kind: string, namespace: string | undefined, name: string): ObjectLike | undefined;
  get(kind: string, namespace: string | undefined, name: string): ObjectLike | undefined {
    return this.byKind.get(kind)?.get(`${namespace ?? ""}/${name}`) as ObjectLike | undefined;
  }

  eventsAbout(uid: string): readonly Event[] {
    const events = this.eventsByObject.get(uid);
    return events ? ([...events.values()] as Event[]) : NONE_EVENTS;
  }

  podsOnNode(node: string): readonly Pod[] {
    return [...(this.podsByNode.get(node)?.values() ?? [])] as Pod[];
  }

  ownerOfIp(ip: string): string | undefined {
    // A Service owns its ClusterIP over any pod; a node owns an address shared by host-network pods.
    const owners = this.byIp.get(ip);
    if (!owners) return undefined;
    for (const kind of ["Service", "Pod", "Node"]) {
      for (const owner of owners.values()) if (owner.kind === kind) return owner.label;
    }
    return undefined;
  }

  ownerChain(object: ObjectLike): readonly ObjectLike[] {
    const chain: ObjectLike[] = [];
    let current: ObjectLike | undefined = object;
    for (let depth = 0; current && depth < 8; depth++) {
      const refs = current.metadata.ownerReferences ?? [];
      const ref = refs.find((r) => r.controller) ?? refs[0];
      const owner = ref?.uid ? this.byUid.get(ref.uid) : undefined;
      if (!owner) {
        // A CronJob's run whose Job is not (or no longer) cached is still the CronJob's (model/cronjob-run.ts).
        const cronJob = ref?.kind === "Job" ? cronJobOfRunName(ref.name) : undefined;
        const found = cronJob ? this.get("CronJob", current.metadata.namespace, cronJob) : undefined;
        if (found) chain.push(found);
        break;
      }
      chain.push(owner as ObjectLike);
      current = owner as ObjectLike;
    }
    return chain;
  }

  // --- internal ---

  /** The uid, node, address and event indexes moved from `previous` to `next` (either may be absent). */
  private reindex(kind: string, key: string, previous: KubeObject | undefined, next: KubeObject | undefined): void {
    const oldUid = previous?.metadata?.uid;
    const newUid = next?.metadata?.uid;
    if (oldUid && oldUid !== newUid) this.byUid.delete(oldUid);
    if (newUid) this.byUid.set(newUid, next as KubeObject);
    if (kind === "Pod") {
      const oldNode = previous?.spec?.nodeName;
      const newNode = next?.spec?.nodeName;
      if (oldNode && oldNode !== newNode) this.podsByNode.get(oldNode)?.delete(key);
      if (newNode) {
        let pods = this.podsByNode.get(newNode);
        if (!pods) this.podsByNode.set(newNode, (pods = new Map()));
        pods.set(key, next as KubeObject);
      }
    }
    if (kind === "Event") {
      if (previous) this.indexEvent(key, previous, false);
      if (next) this.indexEvent(key, next, true);
    }
    if (kind !== "Service" && kind !== "Pod" && kind !== "Node") return;
    const oldIps = previous ? addressesOf(kind, previous) : NO_IPS;
    const newIps = next ? addressesOf(kind, next) : NO_IPS;
    // The label depends on the key only: addresses unchanged means the index is unchanged.
    if (sameList(oldIps, newIps)) return;
    const owner = `${kind}/${key}`;
    for (const ip of oldIps) {
      if (newIps.includes(ip)) continue;
      const owners = this.byIp.get(ip);
      owners?.delete(owner);
      if (owners?.size === 0) this.byIp.delete(ip);
    }
    for (const ip of newIps) {
      if (oldIps.includes(ip)) continue;
      let owners = this.byIp.get(ip);
      if (!owners) this.byIp.set(ip, (owners = new Map()));
      const m = (next as KubeObject).metadata;
      owners.set(owner, { kind, label: m?.namespace ? `${m.namespace}/${m.name}` : `node ${m?.name}` });
    }
  }

  private indexEvent(key: string, event: KubeObject, add: boolean): void {
    const uid = event.involvedObject?.uid;
    if (typeof uid !== "string" || !uid) return;
    let events = this.eventsByObject.get(uid);
    if (add) {
      if (!events) this.eventsByObject.set(uid, (events = new Map()));
      events.set(key, event);
      return;
    }
    events?.delete(key);
    if (events?.size === 0) this.eventsByObject.delete(uid);
  }

  private emit(change: InventoryChange): void {
    for (const listener of this.listeners) listener(change);
  }

  private kindMap(kind: string): Map<string, KubeObject> {
    let map = this.byKind.get(kind);
    if (!map) this.byKind.set(kind, (map = new Map()));
    return map;
  }
}

const NONE: readonly ObjectLike[] = Object.freeze([]);
const NONE_EVENTS: readonly Event[] = Object.freeze([]);

/** `namespace/name` of any value an informer hands over, however malformed. */
function keyOf(o: unknown): string {
  const m = (o as { metadata?: { namespace?: unknown; name?: unknown } } | null)?.metadata;
  return `${typeof m?.namespace === "string" ? m.namespace : ""}/${typeof m?.name === "string" ? m.name : ""}`;
}

// Typed by kind (model/kube.ts), so the indexes read only what each kind's declared projection keeps.
function addressesOf(kind: string, o: KubeObject): readonly string[] {
  if (kind === "Service") return distinct(serviceIps(o as Service));
  if (kind === "Pod") return distinct(podIps(o as Pod));
  if (kind === "Node") return distinct(nodeIps(o as Node));
  return NO_IPS;
}

const NO_IPS: readonly string[] = Object.freeze([]);

/** `list` without repeats, in order (a pod's `podIP` is also its first `podIPs` entry): lists of one to four. */
function distinct(list: string[]): string[] {
  return list.filter((ip, i) => list.indexOf(ip) === i);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function serviceIps(o: Service): string[] {
  return [o.spec?.clusterIP, ...(o.spec?.clusterIPs ?? [])].filter(
    (ip): ip is string => typeof ip === "string" && ip !== "None",
  );
}

function podIps(o: Pod): string[] {
  // Host-network pods share their node's address; the node owns it.
  if (o.spec?.hostNetwork) return [];
  return [o.status?.podIP, ...(o.status?.podIPs ?? []).map((p) => p.ip)].filter(
    (ip): ip is string => typeof ip === "string",
  );
}

function nodeIps(o: Node): string[] {
  return (o.status?.addresses ?? []).filter((a) => a.type === "InternalIP" && a.address).map((a) => a.address);
}

/** The kept object takes the newer version's resourceVersion and writers (see sameKept). */
function refresh(kept: KubeObject, next: KubeObject): void {
  kept.metadata.resourceVersion = next.metadata.resourceVersion;
  if (next.metadata.managedFields !== undefined) kept.metadata.managedFields = next.metadata.managedFields;
}

function objectKey(object: KubeObject): string {
  return `${object.metadata?.namespace ?? ""}/${object.metadata?.name ?? ""}`;
}
