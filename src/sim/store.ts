import { applyCreateDefaults } from "./defaults.ts";
import { jsonPatch, mergePatch, strategicMergePatch } from "./patch.ts";
import { storageKey, TypeRegistry, type ResourceType } from "./resources.ts";
import type { Selector } from "./selectors.ts";
import { alreadyExists, badRequest, conflict, deleted, failure, invalid, notFound, type StatusBody } from "./status.ts";

/** Timers of the clock the simulator runs on (a test's fake clock). */
export interface WatchTimers {
  setTimer(fn: () => void, delayMs: number): () => void;
}

/** A stored object: JSON as the apiserver serves it. */
export type KubeObject = Record<string, any>;

/** One watch event as it goes on the wire. */
export interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: KubeObject;
}

/** Patch media types kube-apiserver accepts (others answer 415). */
export type PatchType =
  | "application/merge-patch+json"
  | "application/json-patch+json"
  | "application/strategic-merge-patch+json";

interface Change {
  rv: number;
  type: "ADDED" | "MODIFIED" | "DELETED";
  key: string;
  object: KubeObject;
  previous?: KubeObject;
}

interface Watcher {
  key: string;
  namespace?: string;
  filter: Selector;
  send: (event: WatchEvent) => void;
  /** The resourceVersion it started from: changes at or before it reached it through its list. */
  fromRv: number;
}

const GENERATION_KINDS = new Set(["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob"]);
const RANDOM_CHARS = "bcdfghjklmnpqrstvwxz2456789";

/**
 * The simulator's object store: every served object, a global resourceVersion counter, a bounded change
 * history for watches from an older resourceVersion, and live watchers (ARCHITECTURE.md "simulator").
 * Time comes from `now()` (epoch ms) so scenarios and tests control timestamps.
 */
export class ObjectStore {
  private rv = 100;
  private readonly sortedCache = new Map<ResourceType, { rv: number; objects: readonly KubeObject[] }>();
  private compactedRv = 0;
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private readonly history: Change[] = [];
  private readonly watchers = new Set<Watcher>();
  private readonly listeners = new Set<(kind: string) => void>();
  private readonly admissions: Admission[] = [];
  /** Changes written but not yet sent to watchers, by storage key, oldest first (setWatchDelay). */
  private readonly unpublished = new Map<string, Change[]>();
  private watchDelay?: { delayOf: (kind: string) => number; timers: WatchTimers };

  constructor(
    private readonly now: () => number = () => Date.now(),
    private readonly historyLimit = 10_000,
    private readonly registry: TypeRegistry = new TypeRegistry(),
  ) {}

  /**
   * Adds an admission step: every create and every update of the main resource (not of `status`) passes the
   * object through it before it is stored; it returns the object to store or throws ApiError (422 Invalid).
   */
  addAdmission(admission: Admission): void {
    this.admissions.push(admission);
  }

  /** Current resourceVersion of the whole store. */
  resourceVersion(): number {
    return this.rv;
  }

  /**
   * Delays watch delivery per kind (docs/simulator.md "Timing profiles"): a change of kind K reaches watchers
   * `delayOf(K)` ms after it was written, changes of one kind in order, so watchers see changes of different
   * kinds in any order within a window. Lists and controllers see every change at once (a watch cache that
   * lags its store). Bookmarks never pass a change not yet sent.
   */
  setWatchDelay(delayOf: (kind: string) => number, timers: WatchTimers): void {
    this.watchDelay = { delayOf, timers };
  }

  /** How many written changes have not been sent to watchers yet (setWatchDelay). */
  pendingWatchEvents(): number {
    let n = 0;
    for (const queue of this.unpublished.values()) n += queue.length;
    return n;
  }

  /** The resourceVersion a watch of `type` has been sent up to: before its oldest change not yet sent. */
  publishedResourceVersion(type: ResourceType): number {
    const pending = this.unpublished.get(storageKey(type))?.[0];
    return pending ? pending.rv - 1 : this.rv;
  }

  /**
   * Objects of `type` as its watchers have been sent them: the current objects with the changes not yet sent
   * undone, by `namespace/name` (undefined: not there yet, or already gone, for them).
   */
  publishedObjects(type: ResourceType): Map<string, KubeObject> {
    const out = new Map(this.collection(type));
    const undone = new Set<string>();
    for (const change of this.unpublished.get(storageKey(type)) ?? []) {
      const key = objectKey(change.object.metadata.namespace, change.object.metadata.name);
      if (undone.has(key)) continue;
      undone.add(key);
      if (change.type === "ADDED" || !change.previous) out.delete(key);
      else out.set(key, change.previous);
    }
    return out;
  }

  /**
   * Whether namespace deletion goes through Terminating (a namespace controller runs: the simulator's
   * controllers set it); otherwise a deleted namespace and its content go at once.
   */
  namespaceLifecycle = false;

  /** The resourceVersion of the last change of each type (by storage key). */
  private readonly lastChange = new Map<string, number>();

  /** The resourceVersion of the last change of `type`, 0 when it never changed (a watch cache's progress). */
  lastChangeOf(type: ResourceType): number {
    return this.lastChange.get(storageKey(type)) ?? 0;
  }

  /** Every namespaced object of `namespace`, of every type. */
  contentOf(namespace: string): KubeObject[] {
    return this.allTypes()
      .filter((t) => t.namespaced)
      .flatMap((t) => this.list(t, namespace));
  }

  /** Drops the change history; watches from an older resourceVersion then get 410 Expired (like etcd compaction). */
  compact(): void {
    this.compactedRv = this.rv;
    this.history.length = 0;
  }

  /**
   * Lists objects of a type, optionally in one namespace and filtered; sorted by `namespace/name` in byte
   * order, as etcd keys are (the order continue tokens page through).
   */
  list(type: ResourceType, namespace: string | undefined, filter: Selector = () => true): KubeObject[] {
    const out: KubeObject[] = [];
    for (const object of this.sorted(type)) {
      if (namespace && object.metadata.namespace !== namespace) continue;
      if (filter(object)) out.push(object);
    }
    return out;
  }

  /** Every object of a type in key order, sorted once per resourceVersion (a paged list asks page after page). */
  private sorted(type: ResourceType): readonly KubeObject[] {
    const cached = this.sortedCache.get(type);
    if (cached && cached.rv === this.rv) return cached.objects;
    const entries = [...this.collection(type).values()].map((object) => ({ key: keyOf(object), object }));
    entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const objects = entries.map((e) => e.object);
    this.sortedCache.set(type, { rv: this.rv, objects });
    return objects;
  }

  /** Gets one object; throws ApiError 404. */
  get(type: ResourceType, namespace: string | undefined, name: string): KubeObject {
    const found = this.collection(type).get(objectKey(namespace, name));
    if (!found) throw notFound(type, name);
    return found;
  }

  /**
   * Creates an object (POST). Fills uid, resourceVersion, creationTimestamp, generation and the create
   * defaults; `generateName` gets 5 random characters. Throws ApiError 400/404/409/422 as the apiserver does.
   * `keepCreationTimestamp` keeps a creationTimestamp the body carries (scenario setup of objects that existed
   * before the story starts); the HTTP API never sets it, as the apiserver ignores the client's value.
   */
  create(
    type: ResourceType,
    namespace: string | undefined,
    body: KubeObject,
    options: { dryRun?: boolean; keepCreationTimestamp?: boolean; manager?: string; writtenAt?: number } = {},
  ): KubeObject {
    if (!body || typeof body !== "object" || Array.isArray(body))
      throw badRequest(`the object provided is unrecognized (must be of type ${type.kind})`);
    const object: KubeObject = structuredClone(body);
    const meta = (object.metadata ??= {});
    if (type.namespaced) {
      if (meta.namespace && meta.namespace !== namespace)
        throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
      meta.namespace = namespace;
      const home = this.collection(this.registry.find("", "v1", "namespaces")!).get(
        objectKey(undefined, namespace ?? ""),
      );
      if (!home) {
        throw failure(404, "NotFound", `namespaces "${namespace}" not found`, { name: namespace, kind: "namespaces" });
      }
      // The NamespaceLifecycle admission plugin: nothing new in a namespace being deleted.
      if (home.metadata.deletionTimestamp)
        throw failure(
          403,
          "Forbidden",
          `${type.name} "${meta.name ?? meta.generateName ?? ""}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
          { name: meta.name, kind: type.name },
        );
    } else delete meta.namespace;
    if (!meta.name && meta.generateName) meta.name = `${meta.generateName}${this.randomSuffix()}`;
    validateName(type, meta.name);
    if (this.collection(type).has(objectKey(meta.namespace, meta.name))) throw alreadyExists(type, meta.name);
    object.kind = type.kind;
    object.apiVersion = storedApiVersion(type);
    meta.uid = crypto.randomUUID();
    const given =
      options.keepCreationTimestamp && typeof meta.creationTimestamp === "string"
        ? Date.parse(meta.creationTimestamp)
        : Number.NaN;
    meta.creationTimestamp = timestamp(Number.isNaN(given) ? this.now() : given);
    if (GENERATION_KINDS.has(type.kind) || type.schema || type.kind === "CustomResourceDefinition") meta.generation = 1;
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    applyCreateDefaults(type.kind, object, () => this.randomSuffix());
    if (options.manager) {
      delete meta.managedFields;
      stampManager(meta, options.manager, undefined, timestamp(options.writtenAt ?? this.now()), object.apiVersion);
    }
    const admitted = this.admit(type, object);
    if (options.dryRun) return ordered(admitted);
    return this.commit(type, "ADDED", ordered(admitted));
  }

  /**
   * Replaces an object (PUT), or only its status with `subresource: "status"`. A stale
   * `metadata.resourceVersion` answers 409 Conflict; an unchanged object keeps its resourceVersion.
   */
  update(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    body: KubeObject,
    subresource?: "status",
    manager?: string,
    writtenAt?: number,
  ): KubeObject {
    const current = this.get(type, namespace, name);
    if (body?.metadata?.name && body.metadata.name !== name)
      throw badRequest("the name of the object does not match the name on the URL");
    const wanted = body?.metadata?.resourceVersion;
    if (wanted && wanted !== current.metadata.resourceVersion) throw conflict(type, name);
    return this.replace(type, current, body, subresource, manager, writtenAt);
  }

  /** Patches an object (PATCH) with a merge, JSON or strategic merge patch; see `update` for conflicts. */
  patch(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    patchType: string,
    patch: unknown,
    subresource?: "status",
    manager?: string,
  ): KubeObject {
    const current = this.get(type, namespace, name);
    let next: unknown;
    if (patchType === "application/merge-patch+json") next = mergePatch(current, patch);
    else if (patchType === "application/strategic-merge-patch+json") next = strategicMergePatch(current, patch);
    else if (patchType === "application/json-patch+json") next = jsonPatch(current, patch);
    else throw failure(415, "UnsupportedMediaType", "415: Unsupported Media Type", {});
    const patchedRv = (next as KubeObject)?.metadata?.resourceVersion;
    if (patchedRv && patchedRv !== current.metadata.resourceVersion) throw conflict(type, name);
    return this.replace(type, current, next as KubeObject, subresource, manager);
  }

  /**
   * Deletes an object. A pod bound to a node is only marked (deletionTimestamp = now + grace, default 30 s)
   * unless `gracePeriodSeconds` is 0; an unbound or force-deleted pod gets MODIFIED then DELETED.
   * Returns the object for pods and a Success Status for other kinds, as the apiserver does.
   */
  delete(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    options: { gracePeriodSeconds?: number } = {},
  ): KubeObject | StatusBody {
    const current = this.get(type, namespace, name);
    if (type.kind === "Pod") {
      const grace = options.gracePeriodSeconds ?? current.spec?.terminationGracePeriodSeconds ?? 30;
      if (current.spec?.nodeName && grace > 0) {
        if (current.metadata.deletionTimestamp) return current;
        const marked = structuredClone(current);
        marked.metadata.deletionTimestamp = timestamp(this.now() + grace * 1000);
        marked.metadata.deletionGracePeriodSeconds = grace;
        return this.commit(type, "MODIFIED", ordered(marked), current);
      }
      const marked = structuredClone(current);
      marked.metadata.deletionTimestamp ??= timestamp(this.now());
      marked.metadata.deletionGracePeriodSeconds = 0;
      const last = this.commit(type, "MODIFIED", ordered(marked), current);
      this.commit(type, "DELETED", last, last);
      return last;
    }
    if (type.kind === "Namespace") {
      // With the namespace controller (the simulator's controllers), deletion goes through Terminating: its
      // content is deleted (pods gracefully), then the namespace goes once it is empty. Without it, at once.
      if (this.namespaceLifecycle && this.contentOf(name).length > 0) {
        if (current.metadata.deletionTimestamp) return current;
        const marked = structuredClone(current);
        marked.metadata.deletionTimestamp = timestamp(this.now());
        marked.metadata.deletionGracePeriodSeconds = 0;
        marked.status = { ...marked.status, phase: "Terminating" };
        return this.commit(type, "MODIFIED", ordered(marked), current);
      }
      for (const other of this.allTypes()) {
        if (!other.namespaced) continue;
        for (const object of this.list(other, name)) this.commit(other, "DELETED", object, object);
      }
    }
    this.commit(type, "DELETED", current, current);
    return deleted(type, name, current.metadata.uid);
  }

  /**
   * Watches a type from `fromRv`: replays retained changes after it, then streams live ones. An object that
   * starts matching the filter arrives as ADDED, one that stops matching as DELETED (with its new state).
   * Returns undefined and sends nothing when `fromRv` is older than the retained history: the caller answers 410.
   */
  watch(
    type: ResourceType,
    namespace: string | undefined,
    fromRv: number,
    filter: Selector,
    send: (event: WatchEvent) => void,
  ): (() => void) | undefined {
    if (fromRv < this.compactedRv) return undefined;
    const watcher: Watcher = { key: storageKey(type), namespace, filter, send, fromRv };
    const waiting = new Set(this.unpublished.get(watcher.key) ?? []);
    for (const change of this.history)
      if (change.rv > fromRv && change.key === watcher.key && !waiting.has(change)) deliver(watcher, change);
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /**
   * Calls `listener` after every committed change with the changed object's kind (the simulator's controllers
   * wake on it, as real controllers wake on their informers). Returns the unsubscribe function.
   */
  onChange(listener: (kind: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The resourceVersion below which history is gone (the number in "too old resource version: X (Y)"). */
  compactedResourceVersion(): number {
    return this.compactedRv;
  }

  // --- internal ---

  private replace(
    type: ResourceType,
    current: KubeObject,
    body: KubeObject,
    subresource?: "status",
    manager?: string,
    writtenAt?: number,
  ): KubeObject {
    let next: KubeObject;
    if (subresource === "status") {
      next = structuredClone(current);
      next.status = structuredClone(body.status);
    } else {
      next = structuredClone(body);
      next.kind = type.kind;
      next.apiVersion = storedApiVersion(type);
      const keep = [
        "uid",
        "creationTimestamp",
        "namespace",
        "name",
        "generation",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
      ];
      next.metadata = { ...(next.metadata ?? {}) };
      for (const field of keep) {
        if (current.metadata[field] === undefined) delete next.metadata[field];
        else next.metadata[field] = current.metadata[field];
      }
      if (type.status) next.status = structuredClone(current.status);
      next = this.admit(type, next);
      if (
        (GENERATION_KINDS.has(type.kind) || type.schema || type.kind === "CustomResourceDefinition") &&
        JSON.stringify(next.spec) !== JSON.stringify(current.spec)
      )
        next.metadata.generation = (current.metadata.generation ?? 1) + 1;
    }
    next.metadata.resourceVersion = current.metadata.resourceVersion;
    // managedFields are the server's: a write does not set them, it is recorded in them (once it changed something).
    if (current.metadata.managedFields === undefined) delete next.metadata.managedFields;
    else next.metadata.managedFields = structuredClone(current.metadata.managedFields);
    next = ordered(next);
    if (canonical(next) === canonical(current)) return current;
    if (manager) stampManager(next.metadata, manager, subresource, timestamp(writtenAt ?? this.now()), next.apiVersion);
    if (
      type.kind === "Pod" &&
      JSON.stringify(next.spec?.nodeName) !== JSON.stringify(current.spec?.nodeName) &&
      current.spec?.nodeName
    ) {
      throw invalid(type, current.metadata.name, [
        {
          field: "spec",
          message:
            "Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
          reason: "FieldValueForbidden",
        },
      ]);
    }
    return this.commit(type, "MODIFIED", next, current);
  }

  /**
   * Writes a recorded watch event as it happened (timeline replay): the object keeps its uid, timestamps and
   * owner references; only its resourceVersion is this store's. A MODIFIED or DELETED of an object the store
   * does not hold is applied as ADDED or ignored, as a late-joining watcher would see it.
   */
  replay(type: ResourceType, kind: Change["type"], body: KubeObject): KubeObject | undefined {
    const object = structuredClone(body);
    object.kind = type.kind;
    object.apiVersion = storedApiVersion(type);
    const key = objectKey(object.metadata?.namespace, object.metadata?.name);
    const previous = this.collection(type).get(key);
    if (kind === "DELETED") return previous ? this.commit(type, "DELETED", object, previous) : undefined;
    return this.commit(type, previous ? "MODIFIED" : "ADDED", object, previous);
  }

  private commit(type: ResourceType, kind: Change["type"], object: KubeObject, previous?: KubeObject): KubeObject {
    this.rv += 1;
    const stored = kind === "DELETED" ? structuredClone(object) : object;
    stored.metadata.resourceVersion = String(this.rv);
    const collection = this.collection(type);
    const key = objectKey(stored.metadata.namespace, stored.metadata.name);
    if (kind === "DELETED") collection.delete(key);
    else collection.set(key, stored);
    const change: Change = { rv: this.rv, type: kind, key: storageKey(type), object: stored, previous };
    this.history.push(change);
    this.lastChange.set(change.key, this.rv);
    if (this.history.length > this.historyLimit) {
      const dropped = this.history.splice(0, this.history.length - this.historyLimit);
      this.compactedRv = dropped[dropped.length - 1]?.rv ?? this.compactedRv;
    }
    const delay = this.watchDelay?.delayOf(type.kind) ?? 0;
    if (this.watchDelay && delay > 0) {
      const queue = this.unpublished.get(change.key) ?? [];
      queue.push(change);
      this.unpublished.set(change.key, queue);
      this.watchDelay.timers.setTimer(() => this.publish(change), delay);
    } else this.publish(change);
    for (const listener of this.listeners) listener(type.kind);
    return stored;
  }

  /** Sends a change to the watchers that started before it. */
  private publish(change: Change): void {
    const queue = this.unpublished.get(change.key);
    if (queue) {
      const at = queue.indexOf(change);
      if (at >= 0) queue.splice(at, 1);
      if (queue.length === 0) this.unpublished.delete(change.key);
    }
    for (const watcher of this.watchers)
      if (watcher.key === change.key && watcher.fromRv < change.rv) deliver(watcher, change);
  }

  private collection(type: ResourceType): Map<string, KubeObject> {
    const key = storageKey(type);
    let found = this.objects.get(key);
    if (!found) {
      found = new Map();
      this.objects.set(key, found);
    }
    return found;
  }

  private allTypes(): ResourceType[] {
    return [...this.objects.keys()]
      .map((k) => {
        const [group = "", version = "", name = ""] = k.split("/");
        return this.registry.find(group, version, name);
      })
      .filter((t): t is ResourceType => Boolean(t));
  }

  private admit(type: ResourceType, object: KubeObject): KubeObject {
    let out = object;
    for (const admission of this.admissions) out = admission(type, out);
    return out;
  }

  private randomSuffix(): string {
    let out = "";
    for (let i = 0; i < 5; i++) out += RANDOM_CHARS[Math.floor(Math.random() * RANDOM_CHARS.length)];
    return out;
  }
}

/** An admission step of the store (`addAdmission`): the object to store, or ApiError thrown. */
export type Admission = (type: ResourceType, object: KubeObject) => KubeObject;

/** `apiVersion` objects of a type are stored with: its storage version's. */
export function storedApiVersion(type: ResourceType): string {
  const version = type.storageVersion ?? type.version;
  return type.group ? `${type.group}/${version}` : version;
}

/** RFC 3339 timestamp with second precision, as metadata timestamps are written. */
export function timestamp(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

// --- internal ---

function deliver(watcher: Watcher, change: Change): void {
  const object = change.object;
  if (watcher.namespace && object.metadata.namespace !== watcher.namespace) return;
  const now = watcher.filter(object);
  const before = change.previous ? watcher.filter(change.previous) : false;
  if (change.type === "DELETED") {
    if (now) watcher.send({ type: "DELETED", object });
  } else if (change.type === "ADDED") {
    if (now) watcher.send({ type: "ADDED", object });
  } else if (now && before) watcher.send({ type: "MODIFIED", object });
  else if (now && !before) watcher.send({ type: "ADDED", object });
  else if (!now && before) watcher.send({ type: "DELETED", object });
}

/**
 * JSON with object keys sorted: kube-apiserver compares objects by content, not by the order of their keys;
 * two values are the same object when their canonical texts are equal.
 */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ""}/${name}`;
}

function keyOf(object: KubeObject): string {
  return objectKey(object.metadata?.namespace, object.metadata?.name);
}

const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function validateName(type: ResourceType, name: unknown): void {
  if (typeof name !== "string" || name === "") {
    throw invalid(type, "", [
      {
        field: "metadata.name",
        message: "Required value: name or generateName is required",
        reason: "FieldValueRequired",
      },
    ]);
  }
  if (name.length > 253 || !NAME.test(name)) {
    throw invalid(type, name, [
      {
        field: "metadata.name",
        message: `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      },
    ]);
  }
}

/** Puts `kind`, `apiVersion`, `metadata`, `spec`, `status` first, as built-in types are serialised. */
function ordered(object: KubeObject): KubeObject {
  const { kind, apiVersion, metadata, spec, status, ...rest } = object;
  const out: KubeObject = { kind, apiVersion, metadata };
  if (spec !== undefined) out.spec = spec;
  Object.assign(out, rest);
  if (status !== undefined) out.status = status;
  return out;
}

/**
 * Records a write in `metadata.managedFields` as kube-apiserver does: one `Update` entry per manager and
 * subresource, its time the last write's (the field sets are left empty: mon reads who and when).
 */
function stampManager(
  meta: KubeObject["metadata"],
  manager: string,
  subresource: "status" | undefined,
  time: string,
  apiVersion: string,
): void {
  const entries: Record<string, unknown>[] = Array.isArray(meta.managedFields) ? meta.managedFields : [];
  const entry = {
    manager,
    operation: "Update",
    apiVersion,
    time,
    fieldsType: "FieldsV1",
    fieldsV1: {},
    ...(subresource ? { subresource } : {}),
  };
  const at = entries.findIndex(
    (e) => e.manager === manager && e.operation === "Update" && e.subresource === subresource,
  );
  if (at >= 0) entries[at] = entry;
  else entries.push(entry);
  meta.managedFields = entries;
}
