import { describe, expect, test } from "bun:test";
import type { KubeObject } from "../../model/inventory.ts";
import { inventoryOf, node, pod, workload } from "../../testing/inventory.ts";
import { detectPods } from "./family.ts";

const NOW = Date.parse("2026-01-01T01:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");
const MIN = 60_000;
const rs = workload("shop", "api").replicaSet;
const crash = (last: KubeObject, restartCount = 5) => ({
  restartCount,
  state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 5m0s restarting failed container" } },
  lastState: { terminated: last },
});
const waitingFor = (reason: string, message?: string) => ({
  state: { waiting: { reason, ...(message ? { message } : {}) } },
});
/** A pod the kubelet accepted `ageMs` ago. */
const aged = (p: KubeObject, ageMs: number) => ({ ...p, status: { ...p.status, startTime: iso(NOW - ageMs) } });
const withStatus = (p: KubeObject, status: KubeObject) => ({ ...p, status: { ...p.status, ...status } });

type Case = {
  name: string;
  objects: KubeObject[];
  want: string[];
  summary?: string;
  evidence?: Record<string, string>;
};

/** One realistic object per reason (status shapes as the kubelet and controllers write them). */
const REASONS: Case[] = [
  {
    name: "CrashLoopBackOff with exit code, class, output and restarts",
    objects: [
      node("n1", "True"),
      aged(
        pod("shop", "api-1", {
          nodeName: "n1",
          owner: rs,
          status: crash(
            {
              exitCode: 1,
              reason: "Error",
              message: "dial tcp 10.20.4.18:5432: connect: connection refused\n",
              finishedAt: iso(NOW - MIN),
            },
            7,
          ),
        }),
        10 * MIN,
      ),
    ],
    want: ["CrashLoopBackOff"],
    summary:
      'container app of pod shop/api-1 is crash-looping: exit 1 (Error), 7 restarts; last output: "dial tcp 10.20.4.18:5432: connect: connection refused"',
    evidence: { restarts: "7", "exit code": "1 (Error)", "exit class": "application error", node: "n1" },
  },
  {
    name: "OOMKilled names the limit",
    objects: [
      aged(
        pod("shop", "api-2", {
          containers: [{ name: "app", image: "x:1", resources: { limits: { memory: "512Mi" } } }],
          status: crash({ exitCode: 137, reason: "OOMKilled", finishedAt: iso(NOW - MIN) }, 3),
        }),
        10 * MIN,
      ),
    ],
    want: ["OOMKilled"],
    evidence: { "memory limit": "512Mi", "exit code": "137 (OOMKilled)" },
  },
  {
    name: "OOMKilled without a limit says what that cost",
    objects: [
      aged(pod("shop", "api-3", { status: { ...crash({ exitCode: 137, reason: "OOMKilled" }, 1) } }), 10 * MIN),
    ],
    want: ["OOMKilled"],
    summary:
      "container app of pod shop/api-3 was OOM-killed (the container has no memory limit, so the node ran out of memory first); 1 restarts",
  },
  {
    name: "ContainerExitedNonZero for a pod that will not restart",
    objects: [
      withStatus(
        {
          ...pod("batch", "report-x", {
            phase: "Failed",
            status: {
              state: {
                terminated: {
                  exitCode: 127,
                  reason: "Error",
                  message: "sh: report: not found",
                  finishedAt: iso(NOW - MIN),
                },
              },
            },
          }),
          spec: { restartPolicy: "Never", containers: [{ name: "app" }] },
        },
        {},
      ),
    ],
    want: ["ContainerExitedNonZero"],
    evidence: { "exit class": "command not found" },
  },
  {
    name: "RunContainerError from a StartError",
    objects: [
      aged(
        pod("shop", "s1", {
          status: {
            restartCount: 2,
            state: { waiting: { reason: "RunContainerError" } },
            lastState: {
              terminated: {
                exitCode: 128,
                reason: "StartError",
                message: 'exec: "app": executable file not found in $PATH',
              },
            },
          },
        }),
        MIN,
      ),
    ],
    want: ["RunContainerError"],
    summary: 'container app of pod shop/s1 could not start: exec: "app": executable file not found in $PATH',
  },
  {
    name: "CreateContainerConfigError after its 1-minute hold",
    objects: [
      aged(
        pod("shop", "c1", {
          phase: "Pending",
          status: waitingFor("CreateContainerConfigError", 'secret "api-keys" not found'),
        }),
        2 * MIN,
      ),
    ],
    want: ["CreateContainerConfigError"],
  },
  {
    name: "CreateContainerError after its 2-minute hold",
    objects: [
      aged(
        pod("shop", "c2", {
          phase: "Pending",
          status: waitingFor("CreateContainerError", "failed to reserve container name"),
        }),
        3 * MIN,
      ),
    ],
    want: ["CreateContainerError"],
  },
  {
    name: "ImagePullBackOff after its 2-minute hold, with pull secrets",
    objects: [
      aged(
        pod("shop", "cart-1", {
          phase: "Pending",
          status: waitingFor("ImagePullBackOff", 'Back-off pulling image "ghcr.io/shop/cart:1.4.O"'),
        }),
        3 * MIN,
      ),
    ],
    want: ["ImagePullBackOff"],
    evidence: { "pull secrets": "none", state: "ImagePullBackOff" },
  },
  {
    name: "ErrImagePull shares the ImagePullBackOff finding",
    objects: [
      aged(
        pod("shop", "cart-2", { phase: "Pending", status: waitingFor("ErrImagePull", "rpc error: not found") }),
        3 * MIN,
      ),
    ],
    want: ["ImagePullBackOff"],
    evidence: { state: "ErrImagePull" },
  },
  {
    name: "InvalidImageName at once",
    objects: [
      pod("shop", "bad", {
        phase: "Pending",
        status: waitingFor(
          "InvalidImageName",
          'Failed to apply default image tag "UPPER/x": couldn\'t parse image name',
        ),
      }),
    ],
    want: ["InvalidImageName"],
  },
  {
    name: "ErrImageNeverPull is ImageUnavailable",
    objects: [
      pod("shop", "never", {
        phase: "Pending",
        status: waitingFor("ErrImageNeverPull", 'Container image "x:1" is not present with pull policy of Never'),
      }),
    ],
    want: ["ImageUnavailable"],
  },
  {
    name: "ContainerStatusUnknown",
    objects: [
      pod("shop", "lost", {
        status: {
          state: {
            terminated: {
              exitCode: 137,
              reason: "ContainerStatusUnknown",
              message: "The container could not be located when the pod was terminated",
            },
          },
        },
      }),
    ],
    want: ["ContainerStatusUnknown"],
  },
  {
    name: "InitContainerFailed after its 2-minute hold",
    objects: [
      aged(
        {
          ...pod("shop", "init", { phase: "Pending", conditions: [{ type: "Initialized", status: "False" }] }),
          status: {
            phase: "Pending",
            conditions: [{ type: "Initialized", status: "False" }],
            initContainerStatuses: [
              {
                name: "wait-for-db",
                restartCount: 4,
                state: { waiting: { reason: "CrashLoopBackOff" } },
                lastState: { terminated: { exitCode: 1, message: "db not ready" } },
              },
            ],
          },
        },
        5 * MIN,
      ),
    ],
    want: ["InitContainerFailed"],
    evidence: { container: "wait-for-db (init)", "last output": "db not ready" },
  },
  {
    name: "PodEvicted with the kubelet's message",
    objects: [pod("shop", "ev", { nodeName: "n1", phase: "Failed", status: undefined }), node("n1", "True")].map((o) =>
      o.kind === "Pod"
        ? { ...o, status: { phase: "Failed", reason: "Evicted", message: "The node was low on resource: memory." } }
        : o,
    ),
    want: ["PodEvicted"],
    summary: "pod shop/ev was evicted from n1: The node was low on resource: memory.",
  },
  {
    name: "PodPreempted from the DisruptionTarget condition",
    objects: [
      {
        ...pod("shop", "pre"),
        status: {
          phase: "Running",
          conditions: [{ type: "DisruptionTarget", status: "True", reason: "PreemptionByScheduler" }],
        },
      },
    ],
    want: ["PodPreempted"],
  },
  {
    name: "PodAdmissionRejected (OutOfcpu)",
    objects: [
      {
        ...pod("shop", "oo", { nodeName: "n1" }),
        status: {
          phase: "Failed",
          reason: "OutOfcpu",
          message: "Pod was rejected: Node didn't have enough resource: cpu",
        },
      },
      node("n1", "True"),
    ],
    want: ["PodAdmissionRejected"],
  },
  {
    name: "UnexpectedAdmissionError",
    objects: [
      {
        ...pod("shop", "gpu"),
        status: {
          phase: "Failed",
          reason: "UnexpectedAdmissionError",
          message: "Allocate failed due to no healthy devices present",
        },
      },
    ],
    want: ["UnexpectedAdmissionError"],
  },
  {
    name: "PodNodeLost for a pod on a lost node",
    objects: [node("n2", "Unknown"), pod("shop", "web-1", { nodeName: "n2", status: crash({ exitCode: 1 }) })],
    want: ["PodNodeLost"],
  },
  {
    name: "FailedScheduling after its 3-minute hold, with the scheduler's message",
    objects: [
      pod("shop", "big", {
        phase: "Pending",
        conditions: [
          {
            type: "PodScheduled",
            status: "False",
            reason: "Unschedulable",
            message: "0/3 nodes are available: 3 Insufficient memory.",
            lastTransitionTime: iso(NOW - 5 * MIN),
          },
        ],
      }),
    ],
    want: ["FailedScheduling"],
    evidence: { scheduler: "0/3 nodes are available: 3 Insufficient memory." },
  },
  {
    name: "PodStuckTerminating 5 minutes past its grace period",
    objects: [
      {
        ...pod("shop", "stuck"),
        metadata: {
          namespace: "shop",
          name: "stuck",
          deletionTimestamp: iso(NOW - 10 * MIN),
          deletionGracePeriodSeconds: 30,
          finalizers: ["example.com/cleanup"],
        },
      },
    ],
    want: ["PodStuckTerminating"],
    evidence: { finalizers: "example.com/cleanup" },
  },
  {
    name: "ReadinessProbeFailing after 5 minutes not ready",
    objects: [
      {
        ...pod("shop", "nr", { owner: rs }),
        status: {
          phase: "Running",
          conditions: [
            { type: "Ready", status: "False", reason: "ContainersNotReady", lastTransitionTime: iso(NOW - 6 * MIN) },
          ],
          containerStatuses: [
            {
              name: "app",
              ready: false,
              started: true,
              restartCount: 0,
              state: { running: { startedAt: iso(NOW - 7 * MIN) } },
            },
          ],
        },
      },
    ],
    want: ["ReadinessProbeFailing"],
  },
];

/** Healthy churn (issue "detect every failure", done-when): none of these is a failure. */
const HEALTHY: Case[] = [
  {
    name: "a running, ready pod",
    objects: [pod("shop", "ok", { owner: rs, status: { ready: true, state: { running: {} } } })],
    want: [],
  },
  {
    name: "a completed Job pod",
    objects: [
      pod("batch", "done", {
        phase: "Succeeded",
        status: { state: { terminated: { exitCode: 0, reason: "Completed" } } },
      }),
    ],
    want: [],
  },
  {
    name: "a pod terminating gracefully within its grace period",
    objects: [
      {
        ...pod("shop", "going", { status: crash({ exitCode: 143 }) }),
        metadata: {
          namespace: "shop",
          name: "going",
          deletionTimestamp: iso(NOW + 20_000),
          deletionGracePeriodSeconds: 30,
        },
      },
    ],
    want: [],
  },
  {
    name: "a fresh pod still pulling its image within its grace period",
    objects: [aged(pod("shop", "new", { phase: "Pending", status: waitingFor("ErrImagePull", "pulling") }), 30_000)],
    want: [],
  },
  {
    name: "PodNeverReady (digest) when it never became ready while a sibling serves",
    objects: [
      {
        ...pod("shop", "nr", { owner: rs }),
        status: {
          phase: "Running",
          conditions: [
            { type: "Ready", status: "False", reason: "ContainersNotReady", lastTransitionTime: iso(NOW - 7 * MIN) },
          ],
          containerStatuses: [
            {
              name: "app",
              ready: false,
              started: true,
              restartCount: 0,
              state: { running: { startedAt: iso(NOW - 7 * MIN) } },
            },
          ],
        },
      },
      pod("shop", "serving", { owner: rs, conditions: [{ type: "Ready", status: "True" }] }),
    ],
    want: ["PodNeverReady"],
  },
  {
    name: "ReadinessProbeFailing when it was ready and lost it, even while a sibling serves",
    objects: [
      {
        ...pod("shop", "nr", { owner: rs }),
        status: {
          phase: "Running",
          conditions: [
            { type: "Ready", status: "False", reason: "ContainersNotReady", lastTransitionTime: iso(NOW - 6 * MIN) },
          ],
          containerStatuses: [
            {
              name: "app",
              ready: false,
              started: true,
              restartCount: 0,
              state: { running: { startedAt: iso(NOW - 60 * MIN) } },
            },
          ],
        },
      },
      pod("shop", "serving", { owner: rs, conditions: [{ type: "Ready", status: "True" }] }),
    ],
    want: ["ReadinessProbeFailing"],
  },
  {
    name: "a pod of a rolling update not ready for a minute",
    objects: [
      {
        ...pod("shop", "rolling", { owner: rs }),
        status: {
          phase: "Running",
          conditions: [{ type: "Ready", status: "False", lastTransitionTime: iso(NOW - MIN) }],
          containerStatuses: [{ name: "app", ready: false, started: true, restartCount: 0, state: { running: {} } }],
        },
      },
    ],
    want: [],
  },
  {
    name: "a first crash gets 3 minutes to recover",
    objects: [aged(pod("shop", "once", { status: crash({ exitCode: 1 }, 1) }), MIN)],
    want: [],
  },
  {
    name: "a pod waiting for the scheduler for a minute",
    objects: [
      pod("shop", "wait", {
        phase: "Pending",
        conditions: [
          { type: "PodScheduled", status: "False", reason: "Unschedulable", lastTransitionTime: iso(NOW - MIN) },
        ],
      }),
    ],
    want: [],
  },
  {
    name: "a Job pod not ready (Jobs are not probed for traffic)",
    objects: [
      {
        ...pod("batch", "job-pod"),
        metadata: { namespace: "batch", name: "job-pod", ownerReferences: [{ kind: "Job", name: "j", uid: "u" }] },
        status: {
          phase: "Running",
          conditions: [{ type: "Ready", status: "False", lastTransitionTime: iso(NOW - 60 * MIN) }],
          containerStatuses: [{ name: "app", ready: false, started: true, state: { running: {} } }],
        },
      },
    ],
    want: [],
  },
];

describe("detectPods", () => {
  for (const c of [...REASONS, ...HEALTHY]) {
    test(c.name, () => {
      const open = detectPods(inventoryOf(...c.objects), NOW).filter(
        (f) => f.opensAt === undefined || f.opensAt <= NOW,
      );
      expect(open.map((f) => f.reason)).toEqual(c.want);
      const f = open[0];
      if (c.summary) expect(f?.summary).toBe(c.summary);
      if (c.evidence)
        expect(Object.fromEntries((f?.evidence ?? []).map((e) => [e.label, e.value]))).toMatchObject(c.evidence);
    });
  }

  test("a finding within its hold opens later: opensAt = start + hold", () => {
    const [f] = detectPods(
      inventoryOf(aged(pod("shop", "new", { phase: "Pending", status: waitingFor("ImagePullBackOff") }), 30_000)),
      NOW,
    );
    expect(f?.opensAt).toBe(NOW - 30_000 + 120_000);
  });

  test("the finding key stays the same while restart counts and messages change", () => {
    const a = detectPods(inventoryOf(pod("shop", "p", { status: crash({ exitCode: 1 }, 3) })), NOW)[0]!;
    const b = detectPods(
      inventoryOf(pod("shop", "p", { status: crash({ exitCode: 2, message: "other" }, 9) })),
      NOW,
    )[0]!;
    expect(a.key).toBe("CrashLoopBackOff/Pod/shop/p/app");
    expect(b.key).toBe(a.key);
  });
});

describe("a crash loop is over only when the recovery is confirmed (no flapping)", () => {
  const exited = { exitCode: 2, reason: "Error", message: "ledger: cannot open WAL", finishedAt: iso(NOW - 4_000) };
  const between = (state: KubeObject, probe = false, ready = false) =>
    inventoryOf(
      node("n1", "True"),
      aged(
        pod("shop", "api-1", {
          nodeName: "n1",
          owner: rs,
          containers: [{ name: "app", image: "registry.example/app:1.0", ...(probe ? { readinessProbe: {} } : {}) }],
          status: { restartCount: 4, ready, state, lastState: { terminated: exited } },
        }),
        30 * MIN,
      ),
    );
  const reasons = (inv: ReturnType<typeof inventoryOf>, at = NOW) => detectPods(inv, at).map((f) => f.reason);

  test("just exited non-zero, before the kubelet backs off: still CrashLoopBackOff, same key", () => {
    const found = detectPods(between({ terminated: exited }), NOW);
    expect(found.map((f) => f.key)).toEqual(["CrashLoopBackOff/Pod/shop/api-1/app"]);
  });

  test("running again for less than its last back-off: still crash-looping, with a wake-up when it would be confirmed", () => {
    // Back-off was 4 s (finished 4 s before it started again): confirmation needs at least 10 s up.
    const running = { running: { startedAt: iso(NOW) } };
    const [f] = detectPods(between(running), NOW + 5_000);
    expect(f).toMatchObject({ reason: "CrashLoopBackOff", recheckAt: NOW + 10_000 });
    expect(f!.summary).toContain('exit 2 (Error), 4 restarts; last output: "ledger: cannot open WAL"');
    expect(reasons(between(running), NOW + 10_000)).toEqual([]);
  });

  test("a longer back-off needs a longer stay up, up to 30 s of it, so a steady run after a 5-minute back-off resolves within a minute (issue 40); a readiness probe that says ready confirms nothing", () => {
    const late = { running: { startedAt: iso(NOW + 16_000) } }; // back-off 20 s
    expect(reasons(between(late), NOW + 16_000 + 19_000)).toEqual(["CrashLoopBackOff"]);
    expect(reasons(between(late), NOW + 16_000 + 20_000)).toEqual([]);
    const after5min = { running: { startedAt: iso(NOW + 296_000) } }; // back-off 300 s
    expect(reasons(between(after5min), NOW + 296_000 + 29_000)).toEqual(["CrashLoopBackOff"]);
    expect(reasons(between(after5min), NOW + 296_000 + 30_000)).toEqual([]);
    // A container can pass its probe a moment after it starts and crash a second later (a 0.2 s first probe).
    expect(reasons(between(late, true, true), NOW + 16_000 + 1_000)).toEqual(["CrashLoopBackOff"]);
    expect(reasons(between(late, true, true), NOW + 16_000 + 20_000)).toEqual([]);
    expect(reasons(between(late, false, true), NOW + 16_000 + 1_000)).toEqual(["CrashLoopBackOff"]);
  });
});

describe("a crash loop is told from its first crash, and its recovery is confirmed whatever the back-off", () => {
  const started = NOW - 2 * MIN;
  const crashed = (status: KubeObject, probe = false) =>
    inventoryOf(
      node("n1", "True"),
      withStatus(
        pod("shop", "api-1", {
          nodeName: "n1",
          owner: rs,
          containers: [{ name: "app", image: "registry.example/app:1.0", ...(probe ? { readinessProbe: {} } : {}) }],
          status,
        }),
        { startTime: iso(started) },
      ),
    );

  test("the first exit, before any restart is counted: a crash in progress, held as a young crash loop", () => {
    const [f] = detectPods(
      crashed({ restartCount: 0, state: { terminated: { exitCode: 1, reason: "Error", finishedAt: iso(NOW) } } }),
      NOW,
    );
    // The Service in front of it now has a cause to wait for instead of being told on its own.
    expect(f).toMatchObject({ key: "CrashLoopBackOff/Pod/shop/api-1/app", opensAt: started + 180_000 });
  });

  test("a container that could not start at all is told as such, not as a crash", () => {
    const [f] = detectPods(
      crashed({
        restartCount: 0,
        state: { terminated: { exitCode: 128, reason: "StartError", message: "exec: not found" } },
      }),
      NOW,
    );
    expect(f?.reason).toBe("RunContainerError");
  });

  // It ran 60 s, crashed, was restarted after a 2 s back-off: a short back-off does not make 10 s enough.
  const longRun = {
    exitCode: 1,
    reason: "Error",
    startedAt: iso(NOW - 62_000),
    finishedAt: iso(NOW - 2_000),
  };
  const runningAgain = (probe: boolean, ready: boolean) =>
    crashed(
      { restartCount: 6, ready, state: { running: { startedAt: iso(NOW) } }, lastState: { terminated: longRun } },
      probe,
    );

  test("a run that crashed after a minute: the next run must last two minutes before it counts as recovered", () => {
    const [f] = detectPods(runningAgain(false, true), NOW + 30_000);
    expect(f).toMatchObject({ reason: "CrashLoopBackOff", recheckAt: NOW + 120_000 });
    expect(detectPods(runningAgain(false, true), NOW + 120_000)).toEqual([]);
  });

  test("…also when a readiness probe says ready: ready is not recovered while it ran shorter than the crashed run", () => {
    expect(detectPods(runningAgain(true, true), NOW + 60_000).map((f) => f.reason)).toEqual(["CrashLoopBackOff"]);
    expect(detectPods(runningAgain(true, true), NOW + 120_000)).toEqual([]);
  });

  test("a run of ten minutes is a recovery whatever ran before (the kubelet forgets its back-off then)", () => {
    const hourLong = { ...longRun, startedAt: iso(NOW - 3_602_000) };
    const inv = crashed({
      restartCount: 2,
      state: { running: { startedAt: iso(NOW) } },
      lastState: { terminated: hourLong },
    });
    expect(detectPods(inv, NOW + 9 * MIN).map((f) => f.reason)).toEqual(["CrashLoopBackOff"]);
    expect(detectPods(inv, NOW + 10 * MIN)).toEqual([]);
  });
});

describe("what a pod shows while its node was down is its node's doing", () => {
  const lostAt = NOW - 20 * MIN;
  const backAt = NOW - 30_000;
  const notReady = (extra: KubeObject = {}) =>
    withStatus(
      aged(
        pod("shop", "api-1", {
          nodeName: "n1",
          owner: rs,
          status: { ready: false, started: true, state: { running: { startedAt: iso(NOW - 60 * MIN) } } },
          conditions: [{ type: "Ready", status: "False", lastTransitionTime: iso(lostAt) }],
        }),
        60 * MIN,
      ),
      extra,
    );

  test("not ready since the node was lost: readiness counts from when the node is Ready again", () => {
    const [f] = detectPods(inventoryOf(node("n1", "True", iso(backAt)), notReady()), NOW);
    // Twenty minutes not ready, but only thirty seconds of it on a Ready node: held until back + 5 min.
    expect(f).toMatchObject({ reason: "ReadinessProbeFailing", since: backAt, opensAt: backAt + 5 * MIN });
  });

  test("deleted while its node was down: not stuck terminating until its node has been back 5 minutes", () => {
    const deleting = (p: KubeObject) => ({
      ...p,
      metadata: { ...p.metadata, deletionTimestamp: iso(lostAt + MIN), deletionGracePeriodSeconds: 30 },
    });
    expect(detectPods(inventoryOf(node("n1", "True", iso(backAt)), deleting(notReady())), NOW)).toEqual([]);
    const longBack = inventoryOf(node("n1", "True", iso(NOW - 6 * MIN)), deleting(notReady()));
    expect(detectPods(longBack, NOW).map((f) => f.reason)).toEqual(["PodStuckTerminating"]);
  });
});

describe("a configuration error whose missing object exists now is a recovery in progress", () => {
  const configError = withStatus(
    aged(
      pod("shop", "api-1", {
        nodeName: "n1",
        owner: rs,
        status: waitingFor("CreateContainerConfigError", 'configmap "api-config" not found'),
      }),
      30 * MIN,
    ),
    {},
  );
  const configMap = (createdAt: number) => ({
    kind: "ConfigMap",
    apiVersion: "v1",
    metadata: { namespace: "shop", name: "api-config", creationTimestamp: iso(createdAt) },
  });

  test("quiet for a minute after the ConfigMap appears (the kubelet retries every 10–15 s), reported again after", () => {
    const missing = inventoryOf(node("n1", "True"), configError);
    expect(detectPods(missing, NOW).map((f) => f.reason)).toEqual(["CreateContainerConfigError"]);
    const fixed = inventoryOf(node("n1", "True"), configError, configMap(NOW - 5_000));
    expect(detectPods(fixed, NOW)).toEqual([]);
    const stillFailing = inventoryOf(node("n1", "True"), configError, configMap(NOW - 2 * MIN));
    expect(detectPods(stillFailing, NOW).map((f) => f.reason)).toEqual(["CreateContainerConfigError"]);
  });
});

describe("what a risky setting cost, said with the failure that shows it (spec 1.6)", () => {
  const crashing = (name: string, extra: { probe?: boolean; image?: string; imageID?: string } = {}): KubeObject => {
    const p: KubeObject = aged(
      pod("shop", name, {
        nodeName: "n1",
        owner: rs,
        containers: [
          {
            name: "app",
            image: extra.image ?? "registry.example/app:1.0",
            ...(extra.probe ? { readinessProbe: { httpGet: { path: "/ready", port: 8080 } } } : {}),
          },
        ],
        status: {
          ...crash({ exitCode: 1, reason: "Error", finishedAt: iso(NOW - MIN) }, 5),
          image: extra.image ?? "registry.example/app:1.0",
          ...(extra.imageID ? { imageID: extra.imageID } : {}),
        },
      }),
      10 * MIN,
    );
    return { ...p, metadata: { ...p.metadata, labels: { app: "api" } } };
  };
  const service: KubeObject = {
    kind: "Service",
    apiVersion: "v1",
    metadata: { namespace: "shop", name: "api", uid: "s-api" },
    spec: { selector: { app: "api" }, ports: [{ port: 80 }] },
  };
  const summary = (...objects: KubeObject[]) =>
    detectPods(inventoryOf(node("n1", "True"), ...objects), NOW).find((f) => f.reason === "CrashLoopBackOff")!.summary;

  test("no readiness probe, behind a Service: it kept getting traffic between crashes", () => {
    expect(summary(crashing("api-1"), service)).toEndWith(
      "what it cost: no readiness probe, so service api kept sending it traffic between crashes",
    );
    // Not said when it has a probe, or when no Service sends it traffic: a setting alone is never news.
    expect(summary(crashing("api-1", { probe: true }), service)).not.toContain("what it cost");
    expect(summary(crashing("api-1"))).not.toContain("what it cost");
  });

  test("a mutable tag: said when pods of the same controller run different images under it", () => {
    const latest = "registry.example/app:latest";
    const running = withStatus(pod("shop", "api-2", { nodeName: "n1", owner: rs, status: {} }), {
      containerStatuses: [{ name: "app", image: latest, imageID: "registry.example/app@sha256:aaa", ready: true }],
    });
    const broken = crashing("api-1", { probe: true, image: latest, imageID: "registry.example/app@sha256:bbb" });
    expect(summary(broken, running)).toContain(
      "what it cost: the mutable tag latest of registry.example/app:latest resolves to a different image in 1 other pod",
    );
    const same = withStatus(running, {
      containerStatuses: [{ name: "app", image: latest, imageID: "registry.example/app@sha256:bbb", ready: true }],
    });
    expect(summary(broken, same)).not.toContain("what it cost");
  });
});
