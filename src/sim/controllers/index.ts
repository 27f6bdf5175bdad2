import type { TypeRegistry } from "../resources.ts";
import type { ObjectStore } from "../store.ts";
import { type ControllerApi, controllerApi } from "./api.ts";
import type { Controller } from "./controller.ts";
import { createCronJobController } from "./cronjob.ts";
import { namespaceController } from "./namespace.ts";
import { daemonSetController } from "./daemonset.ts";
import { createDeploymentController } from "./deployment.ts";
import { createEndpointSliceController } from "./endpointslice.ts";
import { garbageCollector } from "./garbage-collector.ts";
import { createJobController } from "./job.ts";
import { createKubelet, forgetPreviousLogs, type LogSink } from "./kubelet.ts";
import { createNodeLifecycle, KUBELET_ANNOTATION } from "./node-lifecycle.ts";
import { replicaSetController } from "./replicaset.ts";
import { schedulerController } from "./scheduler.ts";
import { statefulSetController } from "./statefulset.ts";
import { RECORDED_TIMING, type TimingProfile } from "./timing.ts";

export { FATE_ANNOTATION, INIT_FATE_ANNOTATION, OUTPUT_ANNOTATION, type Fate } from "./fate.ts";
export { KUBELET_ANNOTATION } from "./node-lifecycle.ts";
export { backOffAt, QUICK_TIMING, REAL_KUBELET_TIMING, RECORDED_TIMING, type TimingProfile } from "./timing.ts";

/** What the controllers need of a clock: the time (epoch ms) and a timer (the fake clock in tests). */
export interface ControllerClock {
  now(): number;
  setTimer(fn: () => void, delayMs: number): () => void;
}

/** The running controllers of a simulator. */
export interface SimControllers {
  /** Stops a node's kubelet (sets the Node annotation `sim.mon.io/kubelet=stopped`, as a user would with kubectl). */
  stopKubelet(node: string): void;
  /** Starts it again (removes the annotation). */
  startKubelet(node: string): void;
  /** Runs every controller now, until nothing changes (tests use it to settle a setup). */
  syncNow(): void;
  stop(): void;
}

/**
 * Starts the simulator's controllers (docs/simulator.md "Controllers"): Deployment, ReplicaSet, StatefulSet,
 * DaemonSet, Job, CronJob, namespace, the scheduler, a kubelet for every node, the node lifecycle controller, EndpointSlices and
 * the garbage collector. They run `timing.reactMs` after any change, as real controllers react to their
 * informers, each round repeated until the cluster stops changing, and again at the times they ask for. Every
 * duration comes from `timing` (the recorded one by default).
 */
export function startControllers(
  sim: { store: ObjectStore; registry: TypeRegistry },
  clock: ControllerClock,
  logs: LogSink,
  timing: TimingProfile = RECORDED_TIMING,
): SimControllers {
  const api: ControllerApi = controllerApi(sim.store, sim.registry, () => clock.now());
  sim.store.namespaceLifecycle = true;
  const nodes = createNodeLifecycle(timing);
  const controllers: readonly Controller[] = [
    createDeploymentController(),
    replicaSetController,
    statefulSetController,
    daemonSetController,
    createJobController(timing),
    createCronJobController(),
    garbageCollector,
    namespaceController,
    schedulerController,
    nodes,
    createKubelet(nodes, logs, timing),
    createEndpointSliceController(timing),
  ];
  let syncing = false;
  let stopped = false;
  let timer: { at: number; cancel: () => void } | undefined;
  const schedule = (at: number) => {
    if (stopped || (timer && timer.at <= at)) return;
    timer?.cancel();
    const cancel = clock.setTimer(
      () => {
        timer = undefined;
        run();
      },
      Math.max(0, at - clock.now()),
    );
    timer = { at, cancel };
  };
  const run = () => {
    if (stopped) return;
    syncing = true;
    let wake: number | undefined;
    try {
      // Each round may enable the next controller's work (Deployment → ReplicaSet → Pod → binding → status).
      for (let round = 0; ; round++) {
        const before = sim.store.resourceVersion();
        wake = undefined;
        for (const c of controllers) {
          const next = c.sync(api);
          if (next !== undefined) wake = Math.min(wake ?? next, next);
        }
        if (sim.store.resourceVersion() === before) break;
        if (round === 20) {
          // Still changing: go on after the reaction time rather than spin.
          wake = Math.min(wake ?? Number.POSITIVE_INFINITY, clock.now() + timing.reactMs);
          break;
        }
      }
    } finally {
      syncing = false;
    }
    if (wake !== undefined) schedule(wake);
  };
  const unsubscribe = sim.store.onChange(() => {
    if (!syncing) schedule(clock.now() + timing.reactMs);
  });
  schedule(clock.now() + timing.reactMs);
  const annotate = (node: string, value: string | undefined) => {
    const current = api.get("Node", undefined, node);
    if (!current) throw new Error(`no node ${node}`);
    const annotations = { ...(current.metadata.annotations ?? {}) };
    if (value === undefined) delete annotations[KUBELET_ANNOTATION];
    else annotations[KUBELET_ANNOTATION] = value;
    api.update({ ...current, metadata: { ...current.metadata, annotations } });
  };
  return {
    stopKubelet: (node) => annotate(node, "stopped"),
    startKubelet: (node) => {
      annotate(node, undefined);
      forgetPreviousLogs(
        api.list("Pod").filter((p) => p.spec?.nodeName === node),
        logs,
      );
    },
    syncNow: run,
    stop() {
      stopped = true;
      timer?.cancel();
      unsubscribe();
    },
  };
}
