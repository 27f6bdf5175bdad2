/**
 * How long things take in the simulator's controllers (docs/simulator.md "Timing profiles"), in milliseconds.
 * A profile is plain data, so it can be written to a file, generated from a seed (`timing-profiles.ts`) and
 * given to `mon sim --timing`. `RECORDED_TIMING` is the default: the values of the watch-event timelines recorded
 * on a real v1.32 control plane (src/sim/testdata/kube-apiserver-v1.32/timelines, "Key observed times"), which
 * `recorded-timing.test.ts` checks the controllers against; where the recording's kubelet emulator compressed
 * time (crash back-off), the real kubelet's value is used.
 */
export interface TimingProfile {
  /** A controller reacts to a change it watches (Deployment ADDED t=10.2 → its pod ADDED t=10.3). */
  readonly reactMs: number;
  /** Bound → container started, the image pulled if needed (all timelines: ContainerCreating → Running 1.2 s). */
  readonly startMs: number;
  /** Started → Ready when the pod has a readiness probe and no longer initial delay (1.2 s). */
  readonly firstProbeMs: number;
  /** A missing ConfigMap appears → the waiting container starts (configmap_missing: t=100.3 → 100.6). */
  readonly configAppearedMs: number;
  /** CreateContainerConfigError and FailedMount are retried (configmap_missing: every 10–15 s). */
  readonly configRetryMs: number;
  /** A crashing process runs this long before it exits. */
  readonly crashRunMs: number;
  /** An init container runs this long before it exits (0 on success, 1 when its fate is to fail). */
  readonly initRunMs: number;
  /** `terminated` is shown this long before the kubelet reports CrashLoopBackOff (statefulset_crash: 0.6 s). */
  readonly terminatedShownMs: number;
  /**
   * The kubelet's restart back-off before restart n+1 is `crashBackOffMs[n]`, the last entry repeating: 10 s
   * doubling to 5 min by default; shorter and front-loaded with KEP-4603's reduced back-off or a node's
   * `maxContainerRestartPeriod` (KEP-5593).
   */
  readonly crashBackOffMs: readonly number[];
  /** The image pull back-off, the same way (ErrImagePull → ImagePullBackOff). */
  readonly pullBackOffMs: readonly number[];
  /** A run-once pod runs this long before it exits (job_backoff: started t=11.7, Failed t=15.0). */
  readonly jobRunMs: number;
  /** A Job's n-th failed pod is replaced after `jobBackOffMs[n-1]`, the last repeating (10 s, 20 s … 6 min). */
  readonly jobBackOffMs: readonly number[];
  /** Readiness probe period when the probe does not set one (the kubelet default). */
  readonly probePeriodMs: number;
  /** Graceful deletion: Killing → containers exited 0 (0.8 s) → the kubelet's final DELETE (0.3 s later). */
  readonly killMs: number;
  readonly finalDeleteMs: number;
  /** The node lifecycle controller marks a silent node Unknown (node-monitor-grace-period, v1.32: 50 s). */
  readonly nodeMonitorGraceMs: number;
  /** A returned node's pods are Ready again (node_lost_daemonset: 3.3 s after the node came back). */
  readonly nodeReturnReadyMs: number;
  /** The unreachable NoSchedule taint goes after the node is Ready again (node_lost_daemonset: 0.6 s) … */
  readonly taintRemovalMs: number;
  /** … and the NoExecute one later (node_lost_daemonset: 3.5 s). */
  readonly noExecuteRemovalMs: number;
  /**
   * The EndpointSlice controller writes a Service's change this long after the pod change that caused it
   * (`--endpointslice-updates-batch-period` plus its queue; recordings: within the same 0.1 s).
   */
  readonly endpointSliceLagMs: number;
  /**
   * Watch delivery delay per kind: the API server sends a change of this kind to watchers this long after it
   * was written, so events of different kinds arrive at a watcher in any order within a window. Kinds not
   * named arrive at once.
   */
  readonly watchDelayMs: Readonly<Record<string, number>>;
}

/** The recorded timing (the default profile). */
export const RECORDED_TIMING: TimingProfile = {
  reactMs: 100,
  startMs: 1_200,
  firstProbeMs: 1_200,
  configAppearedMs: 300,
  configRetryMs: 12_000,
  crashRunMs: 1_000,
  initRunMs: 1_000,
  terminatedShownMs: 600,
  crashBackOffMs: [10_000, 20_000, 40_000, 80_000, 160_000, 300_000],
  pullBackOffMs: [10_000, 20_000, 40_000, 80_000, 160_000, 300_000],
  jobRunMs: 3_300,
  jobBackOffMs: [10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 360_000],
  probePeriodMs: 10_000,
  killMs: 800,
  finalDeleteMs: 300,
  nodeMonitorGraceMs: 50_000,
  nodeReturnReadyMs: 3_300,
  taintRemovalMs: 600,
  noExecuteRemovalMs: 3_500,
  endpointSliceLagMs: 0,
  watchDelayMs: {},
};

/**
 * The timing the real control plane's stories run on in CI (issue 40; src/sim/stories/story.ts QuickSchedule):
 * the recorded timing with the kubelet's reduced back-off (at most 10 s between restarts and image pulls, a
 * legal node setting), so a crash loop or a pull failure is told within a minute. The node lifecycle, the
 * Jobs' back-off and the EndpointSlices keep the real controllers' timing.
 */
export const QUICK_TIMING: TimingProfile = {
  ...RECORDED_TIMING,
  crashBackOffMs: [10_000],
  pullBackOffMs: [10_000],
};

/**
 * The real kubelet's crash timing as measured on the real node (issue 50; kubelet v1.32.13 with containerd 1.6 and
 * a process that exits at once): the first restart comes at once (at the next sync, a second later); each later one at the pod's first sync after
 * the back-off (10 s doubling) has passed — 15, 27, 51 and 81 s after each exit were measured — and the ended
 * container is shown `terminated` for about 14 s before the kubelet writes `CrashLoopBackOff`; a process that exits
 * at once is never seen running. The kubelet
 * differential runs its stand-in on it, and the stories told on the real node are checked on the simulator under
 * it (docs/simulator.md "The kubelet held to the real one").
 */
export const REAL_KUBELET_TIMING: TimingProfile = {
  ...RECORDED_TIMING,
  crashBackOffMs: [1_000, 15_000, 27_000, 51_000, 81_000, 160_000, 300_000],
  terminatedShownMs: 14_000,
  // The stories' and the differential's processes exit at once (a shell's `exit 1`): never seen running.
  crashRunMs: 0,
  initRunMs: 0,
  jobRunMs: 0,
};

/** The n-th entry of a back-off schedule (0-based), the last entry repeating; 0 for an empty schedule. */
export function backOffAt(schedule: readonly number[], n: number): number {
  if (schedule.length === 0) return 0;
  return schedule[Math.min(Math.max(0, n), schedule.length - 1)] ?? 0;
}
