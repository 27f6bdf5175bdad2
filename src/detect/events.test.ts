import { describe, expect, test } from "bun:test";
import type { KubeObject } from "../model/inventory.ts";
import { inventoryOf, pod } from "../testing/inventory.ts";
import { detectEvents, unexplainedEvents } from "./events.ts";

const NOW = Date.parse("2026-01-01T01:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString();
const MIN = 60_000;
let n = 0;
function event(
  reason: string,
  involved: KubeObject,
  options: { count?: number; agoMs?: number; type?: string; message?: string } = {},
): KubeObject {
  n += 1;
  return {
    kind: "Event",
    apiVersion: "v1",
    metadata: { namespace: involved.namespace ?? "default", name: `e${n}`, uid: `uid-e${n}` },
    involvedObject: involved,
    reason,
    message: options.message ?? `${reason} happened`,
    type: options.type ?? "Warning",
    count: options.count ?? 1,
    firstTimestamp: iso(NOW - (options.agoMs ?? MIN) - MIN),
    lastTimestamp: iso(NOW - (options.agoMs ?? MIN)),
    source: { component: "kubelet" },
  };
}
const podRef = { kind: "Pod", namespace: "shop", name: "db-0", uid: "p" };
const nodeRef = { kind: "Node", name: "n1", uid: "n" };
/** db-0 still creating its containers: its warning events are what holds it back. */
const creating = pod("shop", "db-0", {
  phase: "Pending",
  status: { state: { waiting: { reason: "ContainerCreating" } } },
});
/** db-0 running, its container started `agoMs` before NOW. */
const runningSince = (agoMs: number) =>
  pod("shop", "db-0", { status: { state: { running: { startedAt: iso(NOW - agoMs) } }, ready: true } });

describe("detectEvents", () => {
  const cases: [string, KubeObject[], string[]][] = [
    [
      "FailedMount twice in the window",
      [
        event("FailedMount", podRef, {
          count: 2,
          message: 'MountVolume.SetUp failed for volume "certs" : secret "tls" not found',
        }),
      ],
      ["FailedMount"],
    ],
    ["a single FailedMount is not enough", [event("FailedMount", podRef)], []],
    [
      "FailedAttachVolume (Multi-Attach)",
      [
        event("FailedAttachVolume", podRef, {
          message: 'Multi-Attach error for volume "pvc-1" Volume is already exclusively attached to one node',
        }),
      ],
      ["FailedAttachVolume"],
    ],
    [
      "FailedCreatePodSandBox 3 times across events of one pod",
      [event("FailedCreatePodSandBox", podRef, { count: 2 }), event("FailedCreatePodSandBox", podRef)],
      ["FailedCreatePodSandBox"],
    ],
    [
      "SystemOOM, EvictionThresholdMet, image GC and reboot on a node",
      [
        event("SystemOOM", nodeRef),
        event("EvictionThresholdMet", nodeRef),
        event("FreeDiskSpaceFailed", nodeRef),
        event("Rebooted", nodeRef),
      ],
      ["NodeSystemOOM", "NodeEvicting", "NodeImageGCFailed", "NodeRebooted"],
    ],
    [
      "NetworkNotReady on a pod whose node's CNI is not up",
      [
        event("NetworkNotReady", podRef, {
          message:
            "network is not ready: container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized",
        }),
      ],
      ["NetworkNotReady"],
    ],
    ["events older than 15 minutes resolve", [event("SystemOOM", nodeRef, { agoMs: 20 * MIN })], []],
    ["Normal events are never findings", [event("Rebooted", nodeRef, { type: "Normal" })], []],
  ];
  for (const [name, objects, want] of cases)
    test(name, () => expect(detectEvents(inventoryOf(creating, ...objects), NOW).map((f) => f.reason)).toEqual(want));

  // Recovery is quiet: a finding made of past events on a pod that runs now, or is gone, is history.
  const mount = () => event("FailedMount", podRef, { count: 3, message: 'configmap "reports-config" not found' });
  test("a pod's events are history once all its containers run and started after the last of them", () => {
    expect(detectEvents(inventoryOf(runningSince(30_000), mount()), NOW)).toEqual([]);
  });
  test("…but not when its containers started before the last event (a failure while it runs)", () => {
    expect(detectEvents(inventoryOf(runningSince(5 * MIN), mount()), NOW).map((f) => f.reason)).toEqual([
      "FailedMount",
    ]);
  });
  test("…and a pod that is gone has no problem of its own left", () => {
    expect(detectEvents(inventoryOf(mount()), NOW)).toEqual([]);
  });

  test("counts, message and time window in the summary", () => {
    const [f] = detectEvents(
      inventoryOf(creating, event("FailedMount", podRef, { count: 4, message: "timed out waiting for the condition" })),
      NOW,
    );
    expect(f?.summary).toBe("pod shop/db-0: FailedMount (4× in 1 min): timed out waiting for the condition");
  });

  test("unexplained: recent Warning events whose reason no rule maps nor explains", () => {
    const known = event("BackOff", podRef);
    const mapped = event("SystemOOM", nodeRef);
    const strange = event("SomethingVendorSpecific", podRef);
    expect(unexplainedEvents(inventoryOf(known, mapped, strange), NOW)).toEqual([strange.metadata.uid]);
  });
});
