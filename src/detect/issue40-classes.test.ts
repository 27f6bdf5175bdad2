import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { groupFindings } from "../correlate/group.ts";
import { cronJobOfRunName } from "../model/cronjob-run.ts";
import type { KubeObject } from "../model/inventory.ts";
import { inventoryOf, node, pod, workload } from "../testing/inventory.ts";
import { supersededRun } from "./cronjob-runs.ts";
import { detectPods } from "./pods/family.ts";

/**
 * The classes of issue 40's observations, each fixed once for every object it concerns: a CronJob's run is its
 * CronJob's whichever of Job and pods the cache holds; the kubelet's probe kills name a crash loop's cause after
 * the container restarted; a pod unschedulable only because its nodes are lost is their doing.
 */
const NOW = Date.parse("2026-06-01T09:30:00Z");
const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");

const cronJob = (name: string, lastSuccess?: number): KubeObject => ({
  kind: "CronJob",
  apiVersion: "batch/v1",
  metadata: { namespace: "shop", name, uid: `uid-cj-${name}` },
  spec: { schedule: "* * * * *" },
  status: lastSuccess ? { lastSuccessfulTime: iso(lastSuccess) } : {},
});
const runOf = (cron: KubeObject, minute: number): KubeObject => ({
  kind: "Job",
  apiVersion: "batch/v1",
  metadata: {
    namespace: "shop",
    name: `${cron.metadata.name}-${minute}`,
    uid: `uid-job-${minute}`,
    creationTimestamp: iso(minute * 60_000),
    ownerReferences: [{ kind: "CronJob", name: cron.metadata.name, uid: cron.metadata.uid, controller: true }],
  },
  status: { conditions: [{ type: "Failed", status: "True", reason: "BackoffLimitExceeded" }] },
});
const failedPodOf = (job: KubeObject): KubeObject => ({
  ...pod("shop", `${job.metadata.name}-x7k2p`, { owner: job, nodeName: "n1", phase: "Failed" }),
  spec: { nodeName: "n1", restartPolicy: "Never", containers: [{ name: "app", image: "registry.example/report:3" }] },
  status: {
    phase: "Failed",
    containerStatuses: [{ name: "app", restartCount: 0, state: { terminated: { exitCode: 1, reason: "Error" } } }],
  },
});

describe("a CronJob's run is its CronJob's, whichever of them the cache holds (issue 40, 2)", () => {
  test("the CronJob controller's Job names give their CronJob back, whatever the CronJob is called", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z]([a-z0-9-]{0,40}[a-z0-9])?$/),
        fc.integer({ min: 10_000_000, max: 99_999_999 }),
        (name, minute) => cronJobOfRunName(`${name}-${minute}`) === name,
      ),
    );
    expect(cronJobOfRunName("web-7c9d8f6b5")).toBeUndefined();
    expect(cronJobOfRunName("migrate")).toBeUndefined();
  });

  test("a failed run's pod is rooted at the CronJob with its Job cached, not yet seen, or already deleted", () => {
    const minute = Math.floor(NOW / 60_000) - 2;
    fc.assert(
      fc.property(fc.boolean(), (jobCached) => {
        const cron = cronJob("report");
        const job = runOf(cron, minute);
        const inventory = inventoryOf(node("n1", "True"), cron, ...(jobCached ? [job] : []), failedPodOf(job));
        const drafts = groupFindings(detectPods(inventory, NOW), inventory);
        return drafts.length === 1 && drafts[0]!.root.kind === "CronJob" && drafts[0]!.root.name === "report";
      }),
    );
  });

  test("a failed run is history once a later run succeeded: its Job and its pods are no findings", () => {
    const minute = Math.floor(NOW / 60_000) - 3;
    const failed = runOf(cronJob("report"), minute);
    for (const success of [undefined, (minute - 1) * 60_000, (minute + 2) * 60_000]) {
      const cron = cronJob("report", success);
      const inventory = inventoryOf(node("n1", "True"), cron, failed, failedPodOf(failed));
      const over = success !== undefined && success > minute * 60_000;
      expect(supersededRun(inventory, "shop", failed.metadata.name)).toBe(over);
      expect(detectPods(inventory, NOW).length).toBe(over ? 0 : 1);
    }
  });
});

describe("the kubelet's probe kills name a crash loop's cause (issue 40, 3)", () => {
  const crashLooping = (events: KubeObject[]) =>
    inventoryOf(
      node("n1", "True"),
      pod("shop", "api-1", {
        nodeName: "n1",
        status: {
          restartCount: 4,
          state: { waiting: { reason: "CrashLoopBackOff" } },
          lastState: { terminated: { exitCode: 137, reason: "Error", finishedAt: iso(NOW - 20_000) } },
        },
      }),
      ...events,
    );
  const event = (reason: string, message: string, at: number, count = 1): KubeObject => ({
    kind: "Event",
    apiVersion: "v1",
    metadata: { namespace: "shop", name: `api-1.${reason}${at}`, uid: `uid-ev-${reason}-${at}` },
    involvedObject: {
      kind: "Pod",
      namespace: "shop",
      name: "api-1",
      uid: "uid-p-api-1",
      fieldPath: "spec.containers{app}",
    },
    reason,
    message,
    type: reason === "Killing" ? "Normal" : "Warning",
    count,
    lastTimestamp: iso(at),
  });

  test("killed for its liveness probe, whichever run the events were about: the probe and its message are the cause", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 29 * 60 }), fc.integer({ min: 1, max: 9 }), (secondsAgo, kills) => {
        const at = NOW - secondsAgo * 1000;
        const [f] = detectPods(
          crashLooping([
            event("Unhealthy", "Liveness probe failed: HTTP probe failed with statuscode: 500", at, 3 * kills),
            event("Killing", "Container app failed liveness probe, will be restarted", at, kills),
          ]),
          NOW,
        );
        return (
          f!.reason === "CrashLoopBackOff" &&
          f!.summary.includes(
            "killed by the kubelet: its liveness probe failed (Liveness probe failed: HTTP probe failed with statuscode: 500)",
          ) &&
          !f!.summary.includes("out of memory")
        );
      }),
    );
  });

  test("probe kills older than 30 minutes, or of another container, name nothing: exit 137 keeps its usual meaning", () => {
    for (const events of [
      [event("Killing", "Container app failed liveness probe, will be restarted", NOW - 31 * 60_000)],
      [event("Killing", "Container sidecar failed liveness probe, will be restarted", NOW - 60_000)],
      [],
    ]) {
      const [f] = detectPods(crashLooping(events), NOW);
      expect(f!.summary).not.toContain("liveness probe failed");
    }
  });
});

describe("a pod unschedulable only because every node it may run on is lost is that node's doing (issue 40, 4)", () => {
  const pending = (selector: Record<string, string>) => ({
    ...pod("shop", "gpu-1", { phase: "Pending" }),
    spec: { nodeSelector: selector, containers: [{ name: "app", image: "registry.example/gpu:1" }] },
    status: {
      phase: "Pending",
      conditions: [
        {
          type: "PodScheduled",
          status: "False",
          reason: "Unschedulable",
          message:
            "0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, 2 node(s) didn't match Pod's node affinity/selector.",
          lastTransitionTime: iso(NOW - 10 * 60_000),
        },
      ],
    },
  });
  const labelled = (name: string, ready: "True" | "Unknown", gpu: boolean) =>
    node(name, ready, iso(NOW - 20 * 60_000), {
      metadata: {
        name,
        uid: `uid-${name}`,
        labels: { "kubernetes.io/hostname": name, ...(gpu ? { gpu: "yes" } : {}) },
      },
    });

  test("whatever the nodes, the pod joins a lost node's incident exactly when every node its selector allows is lost", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ lost: fc.boolean(), gpu: fc.boolean() }), { minLength: 1, maxLength: 5 }),
        (nodes) => {
          const objects = nodes.map((n, i) => labelled(`w${i}`, n.lost ? "Unknown" : "True", n.gpu));
          const inventory = inventoryOf(...objects, pending({ gpu: "yes" }));
          const found = detectPods(inventory, NOW).find((f) => f.reason === "FailedScheduling")!;
          const allowed = nodes.filter((n) => n.gpu);
          const theirs = allowed.length > 0 && allowed.every((n) => n.lost);
          return theirs
            ? (found.nodeName !== undefined && found.summary.includes("is lost")) || found.summary.includes("are lost")
            : found.nodeName === undefined;
        },
      ),
    );
  });
});

describe("clients refused by an in-cluster Service whose backend fails are that backend's incident (issue 40, 5)", () => {
  const crashing = (name: string, owner: KubeObject, output: string, labels: Record<string, string> = {}) => {
    const p = pod("shop", name, {
      owner,
      nodeName: "n1",
      status: {
        restartCount: 5,
        state: { waiting: { reason: "CrashLoopBackOff" } },
        lastState: { terminated: { exitCode: 1, reason: "Error", message: output, finishedAt: iso(NOW - 10_000) } },
      },
    });
    return { ...p, metadata: { ...p.metadata, labels } };
  };
  const postgres: KubeObject = {
    kind: "StatefulSet",
    apiVersion: "apps/v1",
    metadata: { namespace: "shop", name: "postgres", uid: "uid-sts-postgres" },
    spec: { replicas: 1 },
    status: { replicas: 1, readyReplicas: 0, availableReplicas: 0 },
  };
  const service: KubeObject = {
    kind: "Service",
    apiVersion: "v1",
    metadata: { namespace: "shop", name: "postgres", uid: "uid-svc-postgres" },
    spec: {
      selector: { app: "postgres" },
      clusterIP: "10.96.14.9",
      clusterIPs: ["10.96.14.9"],
      ports: [{ port: 5432 }],
    },
  };

  test("however many workloads fail on it, one incident rooted at the failing StatefulSet names every one of them", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), (n) => {
        const clients = Array.from({ length: n }, (_, i) => workload("shop", `client${i}`));
        const inventory = inventoryOf(
          node("n1", "True"),
          postgres,
          service,
          crashing("postgres-0", postgres, "PANIC:  could not locate a valid checkpoint record\n", { app: "postgres" }),
          ...clients.flatMap((c, i) => [
            c.deployment,
            c.replicaSet,
            crashing(`client${i}-1`, c.replicaSet, "Error: dial tcp 10.96.14.9:5432: connect: connection refused\n"),
          ]),
        );
        const drafts = groupFindings(detectPods(inventory, NOW), inventory);
        return (
          drafts.length === 1 &&
          drafts[0]!.root.kind === "StatefulSet" &&
          drafts[0]!.rootReason === "CrashLoopBackOff" &&
          drafts[0]!.affected?.length === n
        );
      }),
      { numRuns: 12 },
    );
  });
});
