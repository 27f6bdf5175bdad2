import type { Finding } from "../model/finding.ts";
import type { InventoryView, KubeObject } from "../model/inventory.ts";
import type { Kinds, ObjectLike, Pod } from "../model/kube.ts";

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
    const ms = typeof value === "string" ? Date.parse(value) : Number.NaN;
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
export function changedKeys(change: {
  readonly kind: string;
  readonly previous?: KubeObject;
  readonly next?: KubeObject;
  readonly watched?: boolean;
}): string[] {
  const keys = [`kind:${change.kind}`];
  if (change.watched) keys.push(`watches:${change.kind}`);
  for (const o of [change.previous, change.next]) {
    if (!o) continue;
    keys.push(`obj:${change.kind}/${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`);
    if (o.metadata?.uid) keys.push(`uid:${o.metadata.uid}`);
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
    }
    return chain;
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
 * Marks a view that hides some objects of the Inventory (app/isolate.ts sets objects a detector threw on
 * aside): a memory kept against the whole Inventory must not be used or updated through it.
 */
export function markPartial(view: InventoryView): void {
  PARTIAL.add(view);
}

/** True for a view marked by `markPartial`. */
export function isPartial(view: InventoryView): boolean {
  return PARTIAL.has(view);
}

interface Entry<T> {
  readonly object: T;
  readonly findings: readonly Finding[];
  readonly keys: readonly string[];
  /** Epoch ms: the findings hold while `now` is earlier. */
  readonly until: number;
}

/**
 * Per-object memory of one detector family (ARCHITECTURE.md "The pass", incremental passes): an object's
 * findings are computed again only when the object itself changed (a new version is a new value), when
 * something it read changed (`noteChange`), or when time reached the earliest instant its result depends on
 * (`TimeEdges`). Everything else is reused as it was, so a pass costs the objects that changed plus a lookup
 * for the others. The output is the full evaluation's, in the same order (the property test in
 * incremental.test.ts holds it to that). Bounded by the objects of the kind: a deleted object's entry goes.
 */
export class ObjectMemo<T extends ObjectLike> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly readers = new Map<string, Set<string>>();
  private readonly stale = new Set<string>();
  private lastNow = Number.NEGATIVE_INFINITY;
  /** Objects evaluated in the last run (the rest were reused): for benchmarks and tests. */
  evaluated = 0;

  constructor(readonly kind: string) {}

  /** Marks the readers of what `change` touched; drops the entry of a deleted object of this kind. */
  noteChange(change: { kind: string; previous?: KubeObject; next?: KubeObject; watched?: boolean }): void {
    for (const key of changedKeys(change)) {
      const readers = this.readers.get(key);
      if (readers) for (const r of readers) this.stale.add(r);
    }
    if (change.kind === this.kind && change.previous && !change.next) this.drop(objectKey(change.previous));
  }

  /**
   * The findings of `objects` at `now` (epoch ms), reusing what still holds. `evaluate` is the family's
   * per-object detector; it reads the Inventory only through the view it is given, and time only through
   * the TimeEdges. Throws what `evaluate` throws (entries already stored stay valid).
   */
  run(
    objects: readonly T[],
    base: InventoryView,
    now: number,
    evaluate: (object: T, view: RecordingView, time: TimeEdges) => readonly Finding[],
  ): Finding[] {
    // Time never runs backwards for a pass loop; if it did, nothing remembered could be trusted.
    if (now < this.lastNow) this.clear();
    this.lastNow = now;
    this.evaluated = 0;
    const out: Finding[] = [];
    for (const object of objects) {
      const key = objectKey(object);
      const entry = this.entries.get(key);
      if (entry && entry.object === object && now < entry.until && !this.stale.has(key)) {
        for (const f of entry.findings) out.push(f);
        continue;
      }
      const view = new RecordingView(base);
      const time = new TimeEdges(now);
      const findings = evaluate(object, view, time);
      this.evaluated++;
      let until = time.until;
      for (const f of findings) {
        if (f.opensAt !== undefined && f.opensAt > now && f.opensAt < until) until = f.opensAt;
        if (f.recheckAt !== undefined && f.recheckAt > now && f.recheckAt < until) until = f.recheckAt;
      }
      this.drop(key);
      const keys = [...view.keys];
      for (const k of keys) {
        let readers = this.readers.get(k);
        if (!readers) this.readers.set(k, (readers = new Set()));
        readers.add(key);
      }
      this.entries.set(key, { object, findings, keys, until });
      for (const f of findings) out.push(f);
    }
    return out;
  }

  /** Objects remembered (bounded by the objects of the kind). */
  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
    this.readers.clear();
    this.stale.clear();
  }

  // --- internal ---

  private drop(key: string): void {
    this.stale.delete(key);
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    for (const k of entry.keys) {
      const readers = this.readers.get(k);
      readers?.delete(key);
      if (readers?.size === 0) this.readers.delete(k);
    }
  }
}

function objectKey(o: KubeObject): string {
  return `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;
}
