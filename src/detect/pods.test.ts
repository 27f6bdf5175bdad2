import { describe, expect, test } from "bun:test";
import type { KubeObject } from "../model/inventory.ts";
import { inventoryOf, node, pod } from "../testing/inventory.ts";
import { detectPods } from "./pods.ts";

const NOW = Date.parse("2026-01-01T01:00:00Z");
const crash = (last: KubeObject, restartCount = 5) => ({ restartCount, state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 5m0s" } }, lastState: { terminated: last } });

const cases: { name: string; objects: KubeObject[]; want: { reason: string; summary?: string; evidence?: Record<string, string> }[] }[] = [
  {
    name: "CrashLoopBackOff with the last exit code, output and restart count",
    objects: [node("n1", "True"), pod("shop", "api-1", { nodeName: "n1", status: crash({ exitCode: 1, reason: "Error", message: "dial tcp 10.20.4.18:5432: connect: connection refused\n", finishedAt: "2026-01-01T00:59:00Z" }, 7) })],
    want: [{ reason: "CrashLoopBackOff", summary: 'container app of pod shop/api-1 is crash-looping: exit 1 (Error), 7 restarts; last output: "dial tcp 10.20.4.18:5432: connect: connection refused"', evidence: { restarts: "7", "exit code": "1 (Error)", image: "registry.example/app:1.0" } }],
  },
  {
    name: "a crash loop whose last termination was an OOM kill is OOMKilled, with the memory limit",
    objects: [pod("shop", "api-2", { containers: [{ name: "app", image: "x:1", resources: { limits: { memory: "512Mi" } } }], status: crash({ exitCode: 137, reason: "OOMKilled" }, 3) })],
    want: [{ reason: "OOMKilled", evidence: { "memory limit": "512Mi", "exit code": "137 (OOMKilled)" } }],
  },
  {
    name: "ErrImagePull and ImagePullBackOff are one finding (same key), with the registry's message",
    objects: [pod("shop", "cart-1", { phase: "Pending", status: { state: { waiting: { reason: "ErrImagePull", message: "rpc error: not found" } } } })],
    want: [{ reason: "ImagePullBackOff", evidence: { state: "ErrImagePull", message: "rpc error: not found" } }],
  },
  {
    name: "CreateContainerConfigError names the missing reference",
    objects: [pod("shop", "api-3", { phase: "Pending", status: { state: { waiting: { reason: "CreateContainerConfigError", message: 'secret "api-keys" not found' } } } })],
    want: [{ reason: "CreateContainerConfigError", summary: 'container app of pod shop/api-3 cannot be configured: secret "api-keys" not found' }],
  },
  {
    name: "an unschedulable Pending pod carries the scheduler's message",
    objects: [pod("shop", "big", { phase: "Pending", conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable", message: "0/3 nodes are available: 3 Insufficient memory." }] })],
    want: [{ reason: "FailedScheduling", evidence: { scheduler: "0/3 nodes are available: 3 Insufficient memory." } }],
  },
  {
    name: "a pod on a node that is not Ready went down with it; its stale container state is not reported",
    objects: [node("n2", "Unknown"), pod("shop", "web-1", { nodeName: "n2", status: crash({ exitCode: 1 }) })],
    want: [{ reason: "PodNodeLost", summary: "pod shop/web-1 went down with node n2" }],
  },
  {
    name: "healthy, succeeded and terminating pods are not failures",
    objects: [
      pod("shop", "ok", { status: { ready: true, state: { running: {} } } }),
      pod("shop", "done", { phase: "Succeeded", status: { state: { terminated: { exitCode: 0, reason: "Completed" } } } }),
      { ...pod("shop", "going", { status: crash({ exitCode: 1 }) }), metadata: { namespace: "shop", name: "going", deletionTimestamp: "2026-01-01T00:00:00Z" } },
    ],
    want: [],
  },
];

describe("detectPods", () => {
  for (const c of cases) {
    test(c.name, () => {
      const found = detectPods(inventoryOf(...c.objects), NOW);
      expect(found.map((f) => f.reason)).toEqual(c.want.map((w) => w.reason));
      c.want.forEach((w, i) => {
        const f = found[i]!;
        if (w.summary) expect(f.summary).toBe(w.summary);
        const evidence = Object.fromEntries(f.evidence.map((e) => [e.label, e.value]));
        if (w.evidence) expect(evidence).toMatchObject(w.evidence);
      });
    });
  }

  test("the finding key stays the same while restart counts and messages change", () => {
    const a = detectPods(inventoryOf(pod("shop", "p", { status: crash({ exitCode: 1 }, 3) })), NOW)[0]!;
    const b = detectPods(inventoryOf(pod("shop", "p", { status: crash({ exitCode: 2, message: "other" }, 9) })), NOW)[0]!;
    expect(a.key).toBe("CrashLoopBackOff/Pod/shop/p/app");
    expect(b.key).toBe(a.key);
  });
});
