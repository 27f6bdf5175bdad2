import type { InventoryView, KubeObject } from "../model/inventory.ts";

/**
 * The indexed object cache every detector reads (ARCHITECTURE.md kube/): by kind and namespace/name,
 * by uid (for owner chains) and pods by node. Fed by informers; records which keys changed since the
 * last `takeChanges()` so a pass can look at what is new.
 */
export class Inventory implements InventoryView {
  private readonly byKind = new Map<string, Map<string, KubeObject>>();
  private readonly byUid = new Map<string, KubeObject>();
  private readonly podsByNode = new Map<string, Map<string, KubeObject>>();
  private changes = new Set<string>();
  private readonly watched = new Set<string>();

  /** Records that a kind is watched and synced (see InventoryView.watches). */
  markWatched(kind: string): void {
    this.watched.add(kind);
  }

  watches(kind: string): boolean {
    return this.watched.has(kind);
  }

  /** Applies one informer event. Returns the changed key `Kind/namespace/name`. */
  apply(kind: string, type: "ADDED" | "MODIFIED" | "DELETED", object: KubeObject): string {
    const key = objectKey(object);
    const map = this.kindMap(kind);
    const previous = map.get(key);
    if (previous) {
      if (previous.metadata?.uid) this.byUid.delete(previous.metadata.uid);
      if (kind === "Pod") this.podsByNode.get(previous.spec?.nodeName ?? "")?.delete(key);
    }
    if (type === "DELETED") map.delete(key);
    else {
      map.set(key, object);
      if (object.metadata?.uid) this.byUid.set(object.metadata.uid, object);
      if (kind === "Pod" && object.spec?.nodeName) {
        let pods = this.podsByNode.get(object.spec.nodeName);
        if (!pods) this.podsByNode.set(object.spec.nodeName, (pods = new Map()));
        pods.set(key, object);
      }
    }
    const changed = `${kind}/${key}`;
    this.changes.add(changed);
    return changed;
  }

  /** Keys changed since the previous call, then forgets them. */
  takeChanges(): string[] {
    const out = [...this.changes];
    this.changes = new Set();
    return out;
  }

  /** Number of cached objects of each kind. */
  counts(): Record<string, number> {
    return Object.fromEntries([...this.byKind].map(([kind, map]) => [kind, map.size]));
  }

  list(kind: string): readonly KubeObject[] {
    return [...(this.byKind.get(kind)?.values() ?? [])];
  }

  get(kind: string, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.byKind.get(kind)?.get(`${namespace ?? ""}/${name}`);
  }

  podsOnNode(node: string): readonly KubeObject[] {
    return [...(this.podsByNode.get(node)?.values() ?? [])];
  }

  ownerChain(object: KubeObject): readonly KubeObject[] {
    const chain: KubeObject[] = [];
    let current: KubeObject | undefined = object;
    for (let depth = 0; current && depth < 8; depth++) {
      const refs = (current.metadata?.ownerReferences ?? []) as { uid?: string; controller?: boolean }[];
      const ref = refs.find((r) => r.controller) ?? refs[0];
      const owner = ref?.uid ? this.byUid.get(ref.uid) : undefined;
      if (!owner) break;
      chain.push(owner);
      current = owner;
    }
    return chain;
  }

  // --- internal ---

  private kindMap(kind: string): Map<string, KubeObject> {
    let map = this.byKind.get(kind);
    if (!map) this.byKind.set(kind, (map = new Map()));
    return map;
  }
}

function objectKey(object: KubeObject): string {
  return `${object.metadata?.namespace ?? ""}/${object.metadata?.name ?? ""}`;
}
