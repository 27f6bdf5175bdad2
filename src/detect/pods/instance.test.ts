import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { inventoryOf, node, pod, workload } from "../../testing/inventory.ts";
import { detectPods } from "./family.ts";

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
const NOW = Date.parse("2026-06-01T12:00:00Z");
const { deployment, replicaSet } = workload("shop", "api");

/**
 * Which instance of a crashed container printed what explains it (issue 50, seen on a real kubelet: it keeps one
 * dead instance per container, so the one before a just-ended instance is often gone): the current one while the
 * container has just ended, the previous one once the kubelet backs off or runs it again.
 */
describe("the instance whose output explains a crash", () => {
  test("just ended: its current log; backing off or running again: its previous one — for crashes, OOM kills and init containers", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("terminated", "waiting", "running"),
        fc.constantFrom<"Error" | "OOMKilled">("Error", "OOMKilled"),
        fc.boolean(),
        fc.integer({ min: 1, max: 8 }),
        (now, reason, init, restarts) => {
          const ended = {
            exitCode: reason === "OOMKilled" ? 137 : 1,
            reason,
            startedAt: iso(NOW - 5_000),
            finishedAt: iso(NOW - 2_000),
            containerID: "containerd://0a1b",
          };
          const state =
            now === "terminated"
              ? { terminated: ended }
              : now === "waiting"
                ? { waiting: { reason: "CrashLoopBackOff", message: "back-off 40s restarting failed container" } }
                : { running: { startedAt: iso(NOW - 1_000) } };
          const status = {
            name: init ? "setup" : "app",
            restartCount: restarts,
            state,
            ...(now === "terminated" ? {} : { lastState: { terminated: ended } }),
          };
          const p = pod("shop", "api-7c9d8f6b5-a", { nodeName: "n1", owner: replicaSet });
          const withStatus = {
            ...p,
            spec: init ? { ...p.spec, initContainers: [{ name: "setup", image: "x:1" }] } : p.spec,
            status: {
              ...p.status,
              startTime: iso(NOW - 600_000),
              ...(init
                ? {
                    phase: "Pending",
                    conditions: [{ type: "Initialized", status: "False" }],
                    initContainerStatuses: [status],
                    containerStatuses: [{ name: "app", state: { waiting: { reason: "PodInitializing" } } }],
                  }
                : { containerStatuses: [status] }),
            },
          };
          const found = detectPods(
            inventoryOf(node("n1", "True", iso(NOW - 86_400_000)), deployment, replicaSet, withStatus),
            NOW,
          ).filter((f) => ["CrashLoopBackOff", "OOMKilled", "InitContainerFailed"].includes(f.reason));
          expect(found.length).toBeGreaterThan(0);
          for (const f of found) expect(f.crashedInstance).toBe(now === "terminated" ? "current" : "previous");
        },
      ),
      { numRuns: 200 },
    );
  });
});
