/**
 * How long things take in the simulator's controllers, in milliseconds, taken from the watch-event timelines
 * recorded on a real v1.32 control plane (src/sim/testdata/kube-apiserver-v1.32/timelines, "Key observed
 * times"); `controllers.timing.test.ts` replays the same stories through the controllers and checks that their
 * timing matches the recordings. Where the recording's kubelet emulator compressed time (crash back-off), the
 * real kubelet's value is used and said so.
 */
export const TIMING = {
  /** A controller reacts to a change it watches (Deployment ADDED t=10.2 → its pod ADDED t=10.3). */
  reactMs: 100,
  /** Bound → container started, the image pulled if needed (all timelines: ContainerCreating → Running 1.2 s). */
  startMs: 1_200,
  /** Started → Ready when the pod has a readiness probe and no longer initial delay (1.2 s). */
  firstProbeMs: 1_200,
  /** A missing ConfigMap appears → the waiting container starts (configmap_missing: t=100.3 → 100.6). */
  configAppearedMs: 300,
  /** CreateContainerConfigError is retried (configmap_missing: every 10–15 s). */
  configRetryMs: 12_000,
  /** A crashing process runs this long before it exits. */
  crashRunMs: 1_000,
  /** `terminated` is shown this long before the kubelet reports CrashLoopBackOff (statefulset_crash: 0.6 s). */
  terminatedShownMs: 600,
  /** The kubelet's restart back-off: 10 s doubling to 5 min (the recording compressed it; this is the real one). */
  backOffMs: (restarts: number) => Math.min(10_000 * 2 ** Math.max(0, restarts), 300_000),
  /** A run-once pod runs this long before it exits (job_backoff: started t=11.7, Failed t=15.0). */
  jobRunMs: 3_300,
  /** A Job's failed pod is replaced after 10 s, 20 s, 40 s … 6 min (job_backoff: 9.8 s, 19.1 s). */
  jobBackOffMs: (failures: number) => Math.min(10_000 * 2 ** Math.max(0, failures - 1), 360_000),
  /** Readiness probe period when the probe does not set one (the kubelet default). */
  probePeriodMs: 10_000,
  /** Graceful deletion: Killing → containers exited 0 (0.8 s) → the kubelet's final DELETE (0.3 s later). */
  killMs: 800,
  finalDeleteMs: 300,
  /** The node lifecycle controller marks a silent node Unknown (node-monitor-grace-period, v1.32: 50 s). */
  nodeMonitorGraceMs: 50_000,
  /** A returned node's pods are Ready again (node_lost_daemonset: 3.3 s after the node came back). */
  nodeReturnReadyMs: 3_300,
  /** The unreachable NoSchedule taint goes after the node is Ready again (node_lost_daemonset: 0.6 s) … */
  taintRemovalMs: 600,
  /** … and the NoExecute one later (node_lost_daemonset: 3.5 s). */
  noExecuteRemovalMs: 3_500,
} as const;
