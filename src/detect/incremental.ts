import { cronJobOfRunName } from "../model/cronjob-run.ts";
import type { Finding } from "../model/finding.ts";
import type { InventoryChange, InventoryView, KubeObject } from "../model/inventory.ts";
import type { Event, Kinds, ObjectLike, Pod } from "../model/kube.ts";
import { parseTime } from "./evidence.ts";

/**
 * A detector's reading of time (ARCHITECTURE.md "The pass", incremental passes). Every comparison of `now`
 * with an instant goes through `before`, so the earliest future instant at which the result can change is
 * known (`until`, epoch ms): a result computed now stays true until then unless what it read changes. A
 * timestamp that falls back to `now` makes the result change on every pass (`until` = `now`).
 */
export class TimeEdges {
  /** Epoch ms before which the result cannot change with time alone. */
  until = Number.POSITIVE_INFINITY;
  constructor(readonly now: number) {}

  /** `now < at` (epoch ms), recorded: the answer flips at `at`. */
  before(at: number): boolean {
    if (at > this.now) {
      if (at < this.until) this.until = at;
      return true;
    }
    return false;
  }

  /** An RFC 3339 timestamp as epoch ms, `now` when absent or invalid (which ties the result to every pass). */
  time(value: unknown): number {
    const ms = parseTime(value, Number.NaN);
    if (!Number.isNaN(ms)) return ms;
    this.until = this.now;
    return this.now;
  }
}

/**
 * The keys one Inventory change touches: `kind:K` (any object of K, for `list`), `obj:K/ns/name`, `uid:U`
 * (owner chains), `node-pods:N` (pods on a node), `ctrl:U` (pods of a controller: ready and image counts),
 * `watches:K`. A reader that recorded one of them must run again.
 */
export function changedKeys(change: InventoryChange): string[] {
  const keys = [`kind:${change.kind}`];
  if (change.watched) keys.push(`watches:${change.kind}`);
  for (const o of [change.previous, change.next]) {
    if (!o) continue;
    keys.push(`obj:${change.kind}/${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`);
    if (o.metadata?.uid) keys.push(`uid:${o.metadata.uid}`);
    if (change.kind === "Event" && o.involvedObject?.uid) keys.push(`events:${o.involvedObject.uid}`);
    if (change.kind !== "Pod") continue;
    if (o.spec?.nodeName) keys.push(`node-pods:${o.spec.nodeName}`);
    const controller = controllerUid(o as Pod);
    if (controller) keys.push(`ctrl:${controller}`);
  }
  return keys;
}

/** The uid of a pod's controller owner reference, if it has one. */
export function controllerUid(pod: Pod): string | undefined {
  return (pod.metadata?.ownerReferences ?? []).find((r) => r.controller)?.uid;
}

/**
 * An InventoryView that records the keys (see `changedKeys`) of everything read through it. `extra` lets a
 * detector record a key of its own (`ctrl:U` for counts it keeps outside the Inventory).
 */
export class RecordingView implements InventoryView {
  readonly keys = new Set<string>();
  constructor(private readonly base: InventoryView) {}

  list<K extends keyof Kinds>(kind: K): readonly Kinds[K][];
  list(kind: string): readonly ObjectLike[];
  list(kind: string): readonly ObjectLike[] {
    this.keys.add(`kind:${kind}`);
    return this.base.list(kind);
  }

  listIn<K extends keyof Kinds>(kind: K, namespace: string): readonly Kinds[K][];
  listIn(kind: string, namespace: string): readonly ObjectLike[];
  listIn(kind: string, namespace: string): readonly ObjectLike[] {
    // Any object of the kind may move into the namespace's list: the whole kind is read.
    this.keys.add(`kind:${kind}`);
    return this.base.listIn(kind, namespace);
  }

  get<K extends keyof Kinds>(kind: K, namespace: string | undefined, name: string): Kinds[K] | undefined;
  get(kind: string, namespace: string | undefined, name: string): ObjectLike | undefined;
  get(kind: string, namespace: string | undefined, name: string): ObjectLike | undefined {
    this.keys.add(`obj:${kind}/${namespace ?? ""}/${name}`);
    return this.base.get(kind, namespace, name);
  }

  podsOnNode(node: string): readonly Pod[] {
    this.keys.add(`node-pods:${node}`);
    return this.base.podsOnNode(node);
  }

  ownerChain(object: ObjectLike): readonly ObjectLike[] {
    const chain = this.base.ownerChain(object);
    // Each link read, and the one after the last (an owner that may appear later).
    for (const o of [object, ...chain]) {
      const refs = o.metadata.ownerReferences ?? [];
      const ref = refs.find((r) => r.controller) ?? refs[0];
      if (ref?.uid) this.keys.add(`uid:${ref.uid}`);
      // A run whose Job is not cached is its CronJob's by name: that CronJob may appear later too.
      const cronJob = ref?.kind === "Job" ? cronJobOfRunName(ref.name) : undefined;
      if (cronJob) this.keys.add(`obj:CronJob/${o.metadata.namespace ?? ""}/${cronJob}`);
    }
    return chain;
  }

  eventsAbout(uid: string): readonly Event[] {
    this.keys.add(`events:${uid}`);
    return this.base.eventsAbout(uid);
  }

  watches(kind: string): boolean {
    this.keys.add(`watches:${kind}`);
    return this.base.watches(kind);
  }

  ownerOfIp(ip: string): string | undefined {
    for (const kind of ["Service", "Pod", "Node"]) this.keys.add(`kind:${kind}`);
    return this.base.ownerOfIp(ip);
  }

  /** Records a key a detector reads outside the Inventory's own methods. */
  extra(key: string): void {
    this.keys.add(key);
  }
}

const PARTIAL = new WeakSet<InventoryView>();

/**
 * Marks a view that hides some objects of the Inventory (detect/isolate.ts sets objects a detector threw on
 * aside): a memory kept against the whole Inventory must not be used or updated through it.
 */
export function markPartial(view: InventoryView): void {
  PARTIAL.add(view);
}

/** True for a view marked by `markPartial`. */
export function isPartial(view: InventoryView): boolean {
  return PARTIAL.has(view);
}

interface Entry<T, R> {
  readonly object: T;
  readonly findings: readonly R[];
  readonly keys: readonly string[];
  /** Epoch ms: the findings hold while `now` is earlier. */
  readonly until: number;
}

/** How a family's objects are found again: by key, all of them, and those a change of a shared key concerns. */
export interface MemoFamily<T extends ObjectLike, R = Finding> {
  /** The kind of the family's objects (`Pod`). */
  readonly kind: string;
  /** The order of results, one for the full and the incremental family (findings: their key). */
  sortKey(result: R): string;
  /** Instants (epoch ms) at which a result itself changes (a finding's `opensAt` and `recheckAt`). */
  edges(result: R): readonly (number | undefined)[];
  /** The keys (see `changedKeys`) an object reads that the Inventory's own indexes can route back to it. */
  localKeys(object: T): readonly string[];
  /**
   * Routes the changes of `kinds` to the objects they concern (a Node's change: the pods on it), for the
   * `localKeys` an object does not remember.
   */
  readonly reach?: {
    readonly kinds: readonly string[];
    objects(change: InventoryChange, inventory: InventoryView): readonly T[];
  };
}

/**
 * Per-object memory of one detector family (ARCHITECTURE.md "The pass", incremental passes). An object is
 * evaluated again only when it changed, when something it read changed (`noteChange`), or when time reached
 * the earliest instant its result depends on (`TimeEdges`); the others cost nothing. Only "interesting"
 * objects are remembered: those with findings, a time edge, or reads beyond `localKeys` (which the
 * Inventory's indexes route back, `reach`). A quiet object — a healthy pod, which reads only its node — keeps
 * no entry, so the memory is bounded by the failing objects, not the cluster. The findings come sorted by key;
 * `sortedByKey` puts the full family's in the same order, and the property test in incremental.test.ts holds
 * the two equal.
 */
export class ObjectMemo<T extends ObjectLike, R = Finding> {
  private readonly entries = new Map<string, Entry<T, R>>();
  private readonly readers = new Map<string, Set<string>>();
  /** Keys of objects to evaluate at the next run: changed, reached or stale readers. */
  private readonly pending = new Set<string>();
  /** Changes of shared keys (`localKeys`) since the last run, for `reach`. */
  private readonly reached: InventoryChange[] = [];
  private everything = true;
  private lastNow = Number.NEGATIVE_INFINITY;
  private output: R[] | undefined;
  /** Objects evaluated in the last run (the rest were reused): for benchmarks and tests. */
  evaluated = 0;

  constructor(private readonly family: MemoFamily<T, R>) {}

  /**
   * The earliest instant (epoch ms) after `now` at which a remembered object's result can change with time
   * alone (a hold ending, an OOM kill forgotten, a deletion turning stuck), or undefined: the pass loop wakes up
   * then, so what time alone changes is seen in a cluster where nothing else happens.
   */
  nextEdge(now: number): number | undefined {
    let next: number | undefined;
    for (const entry of this.entries.values())
      if (entry.until > now && entry.until !== Number.POSITIVE_INFINITY && (next === undefined || entry.until < next))
        next = entry.until;
    return next;
  }

  /**
   * Marks what `change` concerns for the next run. `keysOf` gives its `changedKeys`, asked only when needed:
   * several memories fed by one change share one computation of them.
   */
  noteChange(change: InventoryChange, keysOf: () => readonly string[] = () => changedKeys(change)): void {
    if (this.everything) return;
    for (const key of keysOf()) {
      const readers = this.readers.get(key);
      if (readers) for (const r of readers) this.pending.add(r);
    }
    if (change.kind === this.family.kind) {
      for (const o of [change.previous, change.next]) if (o) this.pending.add(objectKey(o));
    } else if (this.family.reach?.kinds.includes(change.kind)) this.reached.push(change);
    // Bounded: past the size of a full evaluation, one is cheaper than the list.
    if (this.reached.length > 10_000) this.everything = true;
  }

  /**
   * The findings of the family's objects in `inventory` at `now` (epoch ms), sorted by key, reusing what
   * still holds. `evaluate` is the per-object detector; it reads the Inventory only through the view it is
   * given and time only through the TimeEdges. Throws what `evaluate` throws; the objects not yet evaluated
   * stay pending.
   */
  run(
    inventory: InventoryView,
    now: number,
    evaluate: (object: T, view: RecordingView, time: TimeEdges) => readonly R[],
  ): R[] {
    // Time never runs backwards for a pass loop; if it did, nothing remembered could be trusted.
    if (now < this.lastNow) this.everything = true;
    this.lastNow = now;
    this.evaluated = 0;
    let due: readonly T[];
    if (this.everything) {
      this.clear();
      due = inventory.list(this.family.kind) as readonly T[];
    } else {
      const changed: T[] = [];
      for (const change of this.reached)
        for (const o of this.family.reach?.objects(change, inventory) ?? []) this.pending.add(objectKey(o));
      this.reached.length = 0;
      for (const [key, entry] of this.entries) if (now >= entry.until) this.pending.add(key);
      for (const key of this.pending) {
        const [namespace, name] = splitKey(key);
        const object = inventory.get(this.family.kind, namespace || undefined, name) as T | undefined;
        if (object) changed.push(object);
        else this.forget(key);
      }
      due = changed;
    }
    for (const object of due) {
      const key = objectKey(object);
      const view = new RecordingView(inventory);
      const time = new TimeEdges(now);
      const findings = evaluate(object, view, time);
      this.evaluated++;
      let until = time.until;
      for (const f of findings)
        for (const at of this.family.edges(f)) if (at !== undefined && at > now && at < until) until = at;
      const local = new Set(this.family.localKeys(object));
      const quiet =
        findings.length === 0 && until === Number.POSITIVE_INFINITY && [...view.keys].every((k) => local.has(k));
      const before = this.entries.get(key);
      if (before || !quiet) this.output = undefined;
      this.forget(key);
      if (!quiet) {
        const keys = [...view.keys];
        for (const k of keys) {
          let readers = this.readers.get(k);
          if (!readers) this.readers.set(k, (readers = new Set()));
          readers.add(key);
        }
        this.entries.set(key, { object, findings, keys, until });
      }
      this.pending.delete(key);
    }
    this.everything = false;
    this.pending.clear();
    this.output ??= sortedBy(
      [...this.entries.values()].flatMap((e) => e.findings),
      this.family.sortKey,
    );
    return [...this.output];
  }

  /** Objects remembered (those with findings, a time edge or reads of their own). */
  get size(): number {
    return this.entries.size;
  }

  // --- internal ---

  private clear(): void {
    this.entries.clear();
    this.readers.clear();
    this.pending.clear();
    this.reached.length = 0;
    this.output = undefined;
  }

  private forget(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.output = undefined;
    for (const k of entry.keys) {
      const readers = this.readers.get(k);
      readers?.delete(key);
      if (readers?.size === 0) this.readers.delete(k);
    }
  }
}

/** Results in the order of `key` (one order for the full and the incremental family); sorts in place. */
export function sortedBy<R>(results: R[], key: (r: R) => string): R[] {
  return results.sort((a, b) => {
    const x = key(a);
    const y = key(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

/** Findings in the order of their keys. */
export function sortedByKey(findings: Finding[]): Finding[] {
  return sortedBy(findings, (f) => f.key);
}

/** What a finding's time edges are: its hold's end and the instant it asked to be looked at again. */
export const FINDING_RESULTS = {
  sortKey: (f: Finding) => f.key,
  edges: (f: Finding) => [f.opensAt, f.recheckAt],
} as const;

function objectKey(o: KubeObject): string {
  return `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;
}

function splitKey(key: string): [string, string] {
  const slash = key.indexOf("/");
  return [key.slice(0, slash), key.slice(slash + 1)];
}
