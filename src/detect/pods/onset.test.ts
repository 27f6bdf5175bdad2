import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { inventoryOf, node, pod, workload } from "../../testing/inventory.ts";
import { opensAtWithGrace } from "../grace.ts";
import { detectPods } from "./family.ts";

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
const START = Date.parse("2026-06-01T12:00:00Z");
const { deployment, replicaSet } = workload("shop", "hog");

/** The pod as the kubelet shows it after its `kills`-th kill at `killedAt`, backing off (CrashLoopBackOff). */
function loopingPod(reason: "OOMKilled" | "Error", kills: number, killedAt: number) {
  const p = pod("shop", "hog-7c9d8f6b5-a", {
    nodeName: "n1",
    owner: replicaSet,
    status: {
      restartCount: kills,
      state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 40s restarting failed container" } },
      lastState: {
        terminated: {
          exitCode: reason === "OOMKilled" ? 137 : 1,
          reason,
          startedAt: iso(killedAt - 1_000),
          finishedAt: iso(killedAt),
        },
      },
    },
  });
  return { ...p, status: { ...p.status, startTime: iso(START) } };
}

describe("a failure's onset while it goes on (issue 50)", () => {
  test("an OOM kill loop, like a crash loop, began when it began: its onset does not move with every kill", () => {
    fc.assert(
      fc.property(
        fc.constantFrom<"OOMKilled" | "Error">("OOMKilled", "Error"),
        // The kubelet's back-off between kills, ms: any schedule.
        fc.array(fc.integer({ min: 1_000, max: 300_000 }), { minLength: 2, maxLength: 8 }),
        (reason, gaps) => {
          const onsets = new Set<number>();
          let at = START + 2_000;
          gaps.forEach((gap, i) => {
            at += gap;
            const found = detectPods(
              inventoryOf(
                node("n1", "True", iso(START - 86_400_000)),
                deployment,
                replicaSet,
                loopingPod(reason, i + 1, at),
              ),
              at + 500,
            );
            expect(found).toHaveLength(1);
            onsets.add(found[0]!.since);
          });
          expect([...onsets]).toEqual([START]);
        },
      ),
      { numRuns: 200 },
    );
  });

  test("on a node that just joined, an OOM kill loop opens when the young-node grace ends, not later with each kill", () => {
    // The node joined a minute before the pod started; the grace ends 5 minutes after the loop began.
    const joined = iso(START - 60_000);
    const opens = [1, 2, 3, 4, 5, 6].map((kills) => {
      const at = START + kills * 45_000;
      const inventory = inventoryOf(
        node("n1", "True", joined, { metadata: { name: "n1", uid: "uid-n1", creationTimestamp: joined } }),
        deployment,
        replicaSet,
        loopingPod("OOMKilled", kills, at),
      );
      const [f] = detectPods(inventory, at + 500);
      return opensAtWithGrace(f!, inventory);
    });
    expect(new Set(opens)).toEqual(new Set([START + 300_000]));
  });
});
