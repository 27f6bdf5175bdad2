import type { Finding } from "../model/finding.ts";
import type { InventoryChange, InventoryView } from "../model/inventory.ts";
import { createIncrementalConfigRefs } from "./config-refs.ts";
import { changedKeys } from "./incremental.ts";
import { createIncrementalPods } from "./pods/family.ts";
import { createIncrementalWorkloads } from "./workloads.ts";

/**
 * The incremental forms of the detector families that read every pod or workload (ARCHITECTURE.md "The
 * pass"): `detectors` by family name (`pods`, `config`, `workloads`), for the pipeline's `detectors` option;
 * `noteChange` takes every Inventory change (Inventory.subscribe). Each equals its full family on the same
 * Inventory and time (incremental.test.ts). The pass loop owns one set; nothing else keeps it.
 */
export function createIncrementalFamilies(): {
  readonly detectors: Readonly<
    Record<"pods" | "config" | "workloads", (inventory: InventoryView, now: number) => Finding[]>
  >;
  noteChange(change: InventoryChange): void;
  /** Pods evaluated in the last pass (the others were reused). */
  podsEvaluated(): number;
  /**
   * The earliest instant (epoch ms) after `now` at which a family's result changes with time alone, for the
   * pass loop's wake-up (ObjectMemo.nextEdge).
   */
  nextEdge(now: number): number | undefined;
} {
  const pods = createIncrementalPods();
  const config = createIncrementalConfigRefs();
  const workloads = createIncrementalWorkloads();
  return {
    detectors: { pods: pods.detect, config: config.detect, workloads: workloads.detect },
    noteChange(change) {
      // The keys a change touches are computed once for every family, and only if one asks.
      let keys: readonly string[] | undefined;
      const keysOf = () => (keys ??= changedKeys(change));
      pods.noteChange(change, keysOf);
      config.noteChange(change, keysOf);
      workloads.noteChange(change, keysOf);
    },
    podsEvaluated: pods.evaluated,
    nextEdge(now) {
      const edges = [pods.nextEdge(now), config.nextEdge(now), workloads.nextEdge(now)].filter(
        (at): at is number => at !== undefined,
      );
      return edges.length ? Math.min(...edges) : undefined;
    },
  };
}
