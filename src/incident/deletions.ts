import type { InventoryChange } from "../model/inventory.ts";
import type { DeletionsView } from "./changes.ts";

/** Most deletions remembered; the oldest is forgotten first. About 200 bytes each: 1,000 cost about 200 KiB. */
export const MAX_DELETIONS = 1_000;
/** How long a deletion is remembered, ms: the window "what changed" looks back (incident/changes.ts). */
const REMEMBER_MS = 24 * 3_600_000;
const KINDS = new Set(["ConfigMap", "Secret"]);

/**
 * The ConfigMaps and Secrets deleted in the last 24 hours (issue 32: "the Secret was deleted 3 min before"),
 * kept by the pass loop from the Inventory's changes: bounded by MAX_DELETIONS, forgotten when the object is
 * created again. Only `Kind/namespace/name` and the time are kept, never an object's data.
 */
export class DeletionLog implements DeletionsView {
  private readonly at = new Map<string, number>();

  /** An Inventory change at `now` (epoch ms): a deletion is remembered, a creation forgets it. */
  note(change: InventoryChange, now: number): void {
    if (!KINDS.has(change.kind)) return;
    const object = change.previous ?? change.next;
    if (!object) return;
    const key = keyOf(change.kind, object.metadata?.namespace, object.metadata?.name);
    this.at.delete(key);
    if (change.next) return;
    this.at.set(key, now);
    for (const [k, t] of this.at) {
      if (this.at.size <= MAX_DELETIONS && now - t <= REMEMBER_MS) break;
      this.at.delete(k);
    }
  }

  deletedAt(kind: string, namespace: string | undefined, name: string): number | undefined {
    return this.at.get(keyOf(kind, namespace, name));
  }

  /** Deletions remembered now. */
  get size(): number {
    return this.at.size;
  }
}

function keyOf(kind: string, namespace: string | undefined, name: string | undefined): string {
  return `${kind}/${namespace ?? ""}/${name ?? ""}`;
}
