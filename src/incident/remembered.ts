import type { InventoryChange } from "../model/inventory.ts";
import { refKey } from "../model/object-ref.ts";
import type { RememberedChanges } from "./changes.ts";

/** Most changes remembered; the oldest is forgotten first. About 200 bytes each: 1,000 cost about 200 KiB. */
export const MAX_REMEMBERED = 1_000;
/** How long a change is remembered, ms: the window "what changed" looks back (incident/changes.ts). */
const REMEMBER_MS = 24 * 3_600_000;
const KINDS = new Set(["ConfigMap", "Secret"]);

/**
 * What the objects themselves do not keep, for "what changed" (issue 32), kept by the pass loop from the
 * Inventory's changes in the last 24 hours: the ConfigMaps and Secrets deleted ("the Secret was deleted 3 min
 * before"; forgotten when the object is created again) and the nodes restarted (their `bootID` changed).
 * Bounded by MAX_REMEMBERED; only `Kind/namespace/name` and the time are kept, never an object's data.
 */
export class ChangeMemory implements RememberedChanges {
  private readonly at = new Map<string, number>();

  /** An Inventory change at `now` (epoch ms): a deletion or a restart is remembered, a creation forgets it. */
  note(change: InventoryChange, now: number): void {
    if (change.kind === "Node") {
      this.noteBoot(change, now);
      return;
    }
    if (!KINDS.has(change.kind)) return;
    const object = change.previous ?? change.next;
    if (!object) return;
    const key = keyOf(change.kind, object.metadata?.namespace, object.metadata?.name);
    this.at.delete(key);
    if (change.next) return;
    this.remember(key, now);
  }

  deletedAt(kind: string, namespace: string | undefined, name: string): number | undefined {
    return this.at.get(keyOf(kind, namespace, name));
  }

  restartedAt(node: string): number | undefined {
    return this.at.get(`restart/${node}`);
  }

  /** Changes remembered now. */
  get size(): number {
    return this.at.size;
  }

  // --- internal ---

  private noteBoot(change: InventoryChange, now: number): void {
    const before = change.previous?.status?.nodeInfo?.bootID;
    const after = change.next?.status?.nodeInfo?.bootID;
    if (before && after && before !== after) this.remember(`restart/${change.next?.metadata?.name}`, now);
  }

  private remember(key: string, now: number): void {
    this.at.delete(key);
    this.at.set(key, now);
    for (const [k, t] of this.at) {
      if (this.at.size <= MAX_REMEMBERED && now - t <= REMEMBER_MS) break;
      this.at.delete(k);
    }
  }
}

function keyOf(kind: string, namespace: string | undefined, name: string | undefined): string {
  return refKey({ kind, ...(namespace ? { namespace } : {}), name: name ?? "" });
}
