import type { Pod } from "../../model/kube.ts";
import type { InventoryView } from "../../model/inventory.ts";
import { condition } from "../build.ts";
import { controllerUid } from "../incremental.ts";

/**
 * What the pod family reads of the other pods: ready pods per controller uid, and pods per controller,
 * container and image (see imageKey). Counted per pass by `detectPods`, kept up to date change by change by
 * the incremental family (`PodCounts`).
 */
export interface PodCountsView {
  readyOf(ownerUid: string): number;
  /** Pods of the controller with uid `owner` whose `container` runs `image`, with image id `imageId` or any. */
  podsRunning(owner: string, container: string, image: string, imageId?: string): number;
}

/** The counts of `PodCountsView`, kept change by change: each pod adds its share and a change moves it. */
export class PodCounts implements PodCountsView {
  private readonly ready = new Map<string, number>();
  private readonly images = new Map<string, number>();

  /** Counts over `pods`. */
  static of(pods: readonly Pod[]): PodCounts {
    const counts = new PodCounts();
    for (const p of pods) counts.apply(undefined, p);
    return counts;
  }

  /** A pod changed from `previous` to `next` (either undefined: created or deleted). */
  apply(previous: Pod | undefined, next: Pod | undefined): void {
    if (previous) this.share(previous, -1);
    if (next) this.share(next, 1);
  }

  readyOf = (ownerUid: string): number => this.ready.get(ownerUid) ?? 0;
  podsRunning = (owner: string, container: string, image: string, imageId?: string): number =>
    this.images.get(imageKey(owner, container, image, imageId)) ?? 0;

  // --- internal ---

  private share(p: Pod, sign: 1 | -1): void {
    const uid = controllerUid(p);
    if (!uid) return;
    if (condition(p, "Ready")?.status === "True") bump(this.ready, uid, sign);
    for (const c of p.status?.containerStatuses ?? []) {
      if (!c.imageID || !c.image) continue;
      bump(this.images, imageKey(uid, c.name, c.image), sign);
      bump(this.images, imageKey(uid, c.name, c.image, c.imageID), sign);
    }
  }
}

/** Key of the image counts: a controller's container running `image`, with one `imageId` or any. */
function imageKey(owner: string, container: string, image: string, imageId?: string): string {
  return `${owner}\0${container}\0${image}${imageId === undefined ? "" : `\0${imageId}`}`;
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n === 0) counts.delete(key);
  else counts.set(key, n);
}

/** The counts of one pass's pods, made the first time a pod asks (most passes no pod asks). */
export function passCounts(inventory: InventoryView): PodCountsView {
  let counts: PodCounts | undefined;
  const all = () => (counts ??= PodCounts.of(inventory.list("Pod")));
  return {
    readyOf: (uid) => all().readyOf(uid),
    podsRunning: (owner, container, image, imageId) => all().podsRunning(owner, container, image, imageId),
  };
}
