import { type KubeObject, timestamp } from "../store.ts";
import { type ControllerApi, withCondition } from "./api.ts";
import { missingConfig } from "./config-refs.ts";
import type { Controller } from "./controller.ts";
import { type Fate, fateOf, initFateOf, outputOf } from "./fate.ts";
import { backOffAt, type TimingProfile } from "./timing.ts";

/** Where the kubelet writes what a container printed (the simulator's `pods/log`). */
export type LogSink = (namespace: string, pod: string, container: string, text: string, previous: boolean) => void;

/** What the kubelet asks the node lifecycle controller: is this node's kubelet silent, or still resyncing? */
export interface NodeState {
  /** Epoch ms before which the kubelet writes nothing for pods on `node` (Infinity while it is silent). */
  quietUntil(node: string): number;
}

/** How soon a container killed by its liveness probe starts again: the kubelet's next sync, ms. */
const LIVENESS_RESTART_MS = 1_000;

/** One container instance's history on the simulated kubelet. */
interface Run {
  readonly boundAt: number;
  imageAt: number;
  pullFailures: number;
  pullFailedAt?: number;
  nextPullAt?: number;
  configRetryAt?: number;
  configMissing?: { reason: string; message: string };
  startAt?: number;
  exitAt?: number;
  restartAt?: number;
  restarts: number;
  lastTerminated?: KubeObject;
  /** The last instance was killed by its liveness probe (restarted at the next sync, not after the back-off). */
  killedByProbe?: boolean;
  /** The init containers' progress, for a pod that has them. */
  init?: InitRun;
  ready: boolean;
  probeFailures: number;
  /** Liveness probes failed in the current run (fate `liveness`). */
  livenessFailures: number;
  nextProbeAt?: number;
  killAt?: number;
  done?: "Succeeded" | "Failed";
  containerId: string;
  /** Events already written, by reason and the transition they belong to: each is told once, as the kubelet does. */
  told: Set<string>;
}

/** The init containers of one pod instance: they run one at a time, in order, before the app containers start. */
interface InitRun {
  /** The init container running now (== the count of completed ones). */
  index: number;
  startAt: number;
  exitAt?: number;
  restartAt?: number;
  restarts: number;
  lastTerminated?: KubeObject;
  /** Terminated states of the completed ones, in order. */
  completed: KubeObject[];
  /** When the last one completed (the app containers start then). */
  doneAt?: number;
}

/**
 * A kubelet for every node (docs/simulator.md "Controllers"): runs each bound pod through ContainerCreating
 * (the image pulled if needed), waits for missing ConfigMaps and Secrets, starts the
 * containers, probes readiness, plays the pod's fate (crash loops with the real back-off, OOM kills, pull
 * failures, failing probes, run-once pods), runs init containers one at a time before the app containers
 * (Init:CrashLoopBackOff when one keeps failing), writes the pod status and Events in the kubelet's words, and
 * finishes graceful deletion (containers exit 0, then the final delete). Durations come from `timing`.
 */
export function createKubelet(nodes: NodeState, logs: LogSink, timing: TimingProfile): Controller {
  const runs = new Map<string, Run>();
  const ips = new Map<string, string>();
  let nextIp = 10;
  return {
    name: "kubelet",
    sync(api) {
      let wake: number | undefined;
      const at = (t: number | undefined) => {
        if (t !== undefined && t > api.now()) wake = Math.min(wake ?? t, t);
      };
      const live = new Set<string>();
      for (const pod of api.list("Pod")) {
        const node = pod.spec?.nodeName;
        if (!node) continue;
        live.add(pod.metadata.uid);
        const quiet = nodes.quietUntil(node);
        if (quiet > api.now()) {
          at(quiet);
          continue;
        }
        let run = runs.get(pod.metadata.uid);
        if (!run) {
          run = {
            boundAt: api.now(),
            imageAt: api.now() + timing.startMs,
            pullFailures: 0,
            restarts: 0,
            ready: false,
            probeFailures: 0,
            livenessFailures: 0,
            containerId: `containerd://${pod.metadata.uid.replaceAll("-", "")}`,
            told: new Set(),
          };
          runs.set(pod.metadata.uid, run);
          if (!ips.has(pod.metadata.uid)) ips.set(pod.metadata.uid, `10.244.0.${nextIp++ % 250}`);
        }
        at(step(api, pod, run, logs, ips.get(pod.metadata.uid) ?? "", timing));
        if (
          pod.metadata.deletionTimestamp &&
          run.killAt !== undefined &&
          api.now() >= run.killAt + timing.finalDeleteMs
        ) {
          api.remove("Pod", pod.metadata.namespace, pod.metadata.name, 0);
          runs.delete(pod.metadata.uid);
        }
      }
      for (const uid of runs.keys()) if (!live.has(uid)) runs.delete(uid);
      return wake;
    },
  };
}

// --- internal ---

/**
 * A container's liveness probe as the prober runs it: first at `initialDelaySeconds` (or one period), then every
 * `periodSeconds` (10); killed at the `failureThreshold`-th (3) failure.
 */
function livenessOf(container: KubeObject): {
  firstMs: number;
  periodMs: number;
  threshold: number;
  killAfterMs: number;
} {
  const probe = container.livenessProbe ?? {};
  const periodMs = (probe.periodSeconds ?? 10) * 1000;
  const firstMs = Math.max((probe.initialDelaySeconds ?? 0) * 1000, periodMs);
  const threshold = probe.failureThreshold ?? 3;
  return { firstMs, periodMs, threshold, killAfterMs: firstMs + (threshold - 1) * periodMs };
}

/** Advances one pod to `now`, writes its status; returns when it next changes. */
function step(
  api: ControllerApi,
  pod: KubeObject,
  run: Run,
  logs: LogSink,
  podIp: string,
  timing: TimingProfile,
): number | undefined {
  const now = api.now();
  const container = pod.spec?.containers?.[0] ?? {};
  const source = "kubelet";
  if (pod.metadata.deletionTimestamp) {
    if (run.killAt === undefined) {
      run.killAt = now + timing.killMs;
      api.event(pod, "Normal", "Killing", `Stopping container ${container.name}`, source);
    }
    if (now < run.killAt) return run.killAt;
    run.done ??= "Succeeded";
    run.ready = false;
    run.lastTerminated = undefined;
    write(api, pod, run, podIp, {
      terminated: {
        exitCode: 0,
        reason: "Completed",
        startedAt: timestamp(run.startAt ?? now),
        finishedAt: timestamp(run.killAt),
        containerID: run.containerId,
      },
    });
    return run.killAt + timing.finalDeleteMs;
  }
  if (run.done) return undefined;
  const fate = fateOf(pod);

  // The image.
  if (fate === "image-missing" && run.startAt === undefined) {
    if (now < run.imageAt) return writeThen(api, pod, run, podIp, creating(), run.imageAt);
    run.nextPullAt ??= run.imageAt;
    while (now >= run.nextPullAt) {
      run.pullFailedAt = run.nextPullAt;
      run.pullFailures += 1;
      run.nextPullAt = run.pullFailedAt + backOffAt(timing.pullBackOffMs, run.pullFailures - 1);
      // As kubelet v1.32 tells a pull that fails: the attempt, why, and the error the container is waiting on.
      api.event(pod, "Normal", "Pulling", `Pulling image "${container.image}"`, source);
      api.event(
        pod,
        "Warning",
        "Failed",
        `Failed to pull image "${container.image}": ${pullError(container.image)}`,
        source,
      );
      api.event(pod, "Warning", "Failed", "Error: ErrImagePull", source);
    }
    const showingError = now < (run.pullFailedAt ?? 0) + timing.terminatedShownMs;
    if (!showingError && once(run, `pull-backoff@${run.pullFailedAt}`)) {
      api.event(pod, "Normal", "BackOff", `Back-off pulling image "${container.image}"`, source);
      api.event(pod, "Warning", "Failed", "Error: ImagePullBackOff", source);
    }
    write(api, pod, run, podIp, {
      waiting: showingError
        ? { reason: "ErrImagePull", message: pullError(container.image) }
        : {
            reason: "ImagePullBackOff",
            message: `Back-off pulling image "${container.image}": ErrImagePull: ${pullError(container.image)}`,
          },
    });
    return showingError ? (run.pullFailedAt ?? 0) + timing.terminatedShownMs : run.nextPullAt;
  }
  if (run.pullFailures > 0 && run.startAt === undefined && run.imageAt < (run.pullFailedAt ?? 0)) {
    // The image was fixed (a new tag, or the fate changed): the next pull succeeds.
    run.imageAt = now + timing.startMs;
  }
  if (now < run.imageAt) return writeThen(api, pod, run, podIp, creating(), run.imageAt);

  // ConfigMaps and Secrets.
  if (run.startAt === undefined) {
    const missing = missingConfig(api, pod);
    if (missing) {
      run.configRetryAt ??= run.imageAt;
      if (now >= run.configRetryAt) {
        run.configRetryAt = now + timing.configRetryMs;
        // The image is made sure of before the container's configuration, on every retry (kubelet v1.32).
        if (missing.reason !== "FailedMount")
          api.event(pod, "Normal", "Pulled", `Container image "${container.image}" already present on machine`, source);
        api.event(
          pod,
          "Warning",
          missing.reason === "FailedMount" ? "FailedMount" : "Failed",
          missing.reason === "FailedMount" ? missing.message : `Error: ${missing.message}`,
          source,
        );
      }
      run.configMissing = missing;
      write(
        api,
        pod,
        run,
        podIp,
        missing.reason === "FailedMount"
          ? creating()
          : { waiting: { reason: missing.reason, message: missing.message } },
      );
      return run.configRetryAt;
    }
    const begin = run.configMissing ? now + timing.configAppearedMs : run.imageAt;
    if ((pod.spec?.initContainers ?? []).length > 0) {
      run.init ??= { index: 0, startAt: begin, restarts: 0, completed: [] };
      const waitUntil = stepInit(api, pod, run, run.init, logs, podIp, timing);
      if (run.init.doneAt === undefined) return waitUntil;
      run.startAt = run.init.doneAt;
    } else run.startAt = begin;
  }
  if (now < run.startAt) return writeThen(api, pod, run, podIp, shownBeforeStart(run), run.startAt);
  run.configMissing = undefined;

  // Running, exiting, restarting.
  let next: number | undefined;
  let livenessNext: number | undefined;
  for (;;) {
    if (run.restartAt !== undefined) {
      if (now < run.restartAt) {
        const exitedAt = run.exitAt ?? 0;
        // A container its liveness probe killed is not shown ended: the kubelet says it backs off at once.
        const shown = exitedAt + (run.killedByProbe ? 0 : timing.terminatedShownMs);
        if (now < shown) {
          write(api, pod, run, podIp, { terminated: run.lastTerminated });
          return shown;
        }
        if (once(run, `backoff@${run.restartAt}`))
          api.event(
            pod,
            "Warning",
            "BackOff",
            `Back-off restarting failed container ${container.name} in pod ${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`,
            source,
          );
        write(api, pod, run, podIp, {
          waiting: {
            reason: "CrashLoopBackOff",
            message: `back-off ${goDuration(backOffAt(timing.crashBackOffMs, run.restarts))} restarting failed container=${container.name} pod=${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`,
          },
        });
        return run.restartAt;
      }
      run.startAt = run.restartAt;
      run.restartAt = undefined;
      run.exitAt = undefined;
      run.restarts += 1;
      // A new instance: it has printed nothing yet.
      logs(pod.metadata.namespace, pod.metadata.name, container.name, "", false);
      run.ready = false;
      run.probeFailures = 0;
      run.livenessFailures = 0;
      run.nextProbeAt = undefined;
    }
    if (once(run, `started@${run.startAt}`)) containerStarted(api, pod, container, source);
    const liveness = livenessOf(container);
    const exits: Partial<Record<Fate, number>> = {
      crash: timing.crashRunMs,
      oom: timing.crashRunMs,
      liveness: liveness.killAfterMs,
      fail: timing.jobRunMs,
      complete: timing.jobRunMs,
    };
    livenessNext = undefined;
    if (fate === "liveness" && run.startAt !== undefined) {
      // Each failed probe is an Unhealthy event at its time, as the prober writes it.
      const failed = Math.min(
        liveness.threshold,
        Math.max(0, Math.floor((now - run.startAt - liveness.firstMs) / liveness.periodMs) + 1),
      );
      for (let i = run.livenessFailures; i < failed; i++)
        api.event(pod, "Warning", "Unhealthy", "Liveness probe failed: HTTP probe failed with statuscode: 500", source);
      run.livenessFailures = failed;
      if (failed < liveness.threshold) livenessNext = run.startAt + liveness.firstMs + failed * liveness.periodMs;
    }
    const runsFor = exits[fate];
    // A fate given to a container that has run for a while takes effect at once (its process fails now).
    run.exitAt = runsFor === undefined ? undefined : (run.exitAt ?? Math.max((run.startAt ?? now) + runsFor, now));
    if (run.exitAt !== undefined && now >= run.exitAt) {
      if (fate === "liveness")
        api.event(
          pod,
          "Normal",
          "Killing",
          `Container ${container.name} failed liveness probe, will be restarted`,
          source,
        );
      const exitCode = fate === "oom" || fate === "liveness" ? 137 : fate === "complete" ? 0 : 1;
      const output = outputOf(pod, fate);
      run.lastTerminated = {
        exitCode,
        reason: fate === "oom" ? "OOMKilled" : exitCode === 0 ? "Completed" : "Error",
        ...(output && container.terminationMessagePolicy === "FallbackToLogsOnError" ? { message: output } : {}),
        startedAt: timestamp(run.startAt ?? now),
        finishedAt: timestamp(run.exitAt),
        containerID: instanceId(run),
      };
      run.ready = false;
      // The ended instance's output is its current log until the kubelet starts the next one, and its previous
      // log from then on (kubelet logs: `--previous` is the status' lastState, the current one its state).
      if (output) {
        logs(pod.metadata.namespace, pod.metadata.name, container.name, output, false);
        logs(pod.metadata.namespace, pod.metadata.name, container.name, output, true);
      }
      const policy = pod.spec?.restartPolicy ?? "Always";
      if (policy === "Never" || (policy === "OnFailure" && exitCode === 0)) {
        run.done = exitCode === 0 ? "Succeeded" : "Failed";
        write(api, pod, run, podIp, { terminated: run.lastTerminated });
        return undefined;
      }
      // Killed by its liveness probe, it is started again at the kubelet's next sync, not after its back-off: a
      // real kubelet v1.32 restarted such a container at the rhythm of its probe (measured on the real node).
      run.killedByProbe = fate === "liveness";
      run.restartAt =
        run.exitAt + (run.killedByProbe ? LIVENESS_RESTART_MS : backOffAt(timing.crashBackOffMs, run.restarts));
      continue;
    }
    next = livenessNext !== undefined && run.exitAt !== undefined ? Math.min(livenessNext, run.exitAt) : run.exitAt;
    break;
  }

  // Readiness.
  const probe = container.readinessProbe;
  if (!probe && fate !== "unready") run.ready = true;
  else {
    const period = probe?.periodSeconds ? probe.periodSeconds * 1000 : timing.probePeriodMs;
    const threshold = probe?.failureThreshold ?? 3;
    if (run.nextProbeAt === undefined)
      run.nextProbeAt = run.ready
        ? now + period
        : (run.startAt ?? now) + Math.max((probe?.initialDelaySeconds ?? 0) * 1000, timing.firstProbeMs);
    while (run.nextProbeAt !== undefined && now >= run.nextProbeAt) {
      if (fate === "unready") {
        run.probeFailures += 1;
        api.event(
          pod,
          "Warning",
          "Unhealthy",
          "Readiness probe failed: HTTP probe failed with statuscode: 503",
          "kubelet",
        );
        if (run.probeFailures >= threshold) run.ready = false;
      } else {
        run.probeFailures = 0;
        run.ready = true;
      }
      run.nextProbeAt += period;
    }
    // A healthy, ready container changes nothing until its fate does (which wakes the kubelet anyway).
    if (fate !== "unready" && run.ready) run.nextProbeAt = undefined;
    if (run.nextProbeAt !== undefined) next = Math.min(next ?? run.nextProbeAt, run.nextProbeAt);
  }
  write(api, pod, run, podIp, { running: { startedAt: timestamp(run.startAt ?? now) } });
  return next;
}

/**
 * Advances a pod's init containers to `now`: each runs `initRunMs` and exits 0, except the first one of a pod
 * whose init fate is `crash`, which exits 1 and is restarted with the crash back-off (Init:CrashLoopBackOff).
 * Writes the status while they run; returns when they next change. `init.doneAt` is set once all completed.
 */
function stepInit(
  api: ControllerApi,
  pod: KubeObject,
  run: Run,
  init: InitRun,
  logs: LogSink,
  podIp: string,
  timing: TimingProfile,
): number | undefined {
  const now = api.now();
  const specs: KubeObject[] = pod.spec?.initContainers ?? [];
  const waitingApp = { waiting: { reason: "PodInitializing" } };
  if (now < init.startAt) return writeThen(api, pod, run, podIp, shownBeforeStart(run), init.startAt, creating());
  run.configMissing = undefined;
  for (;;) {
    const c = specs[init.index];
    if (!c) {
      init.doneAt ??= now;
      return undefined;
    }
    if (init.restartAt !== undefined) {
      if (now < init.restartAt) {
        const shown = (init.exitAt ?? 0) + timing.terminatedShownMs;
        if (now < shown) return writeThen(api, pod, run, podIp, waitingApp, shown, { terminated: init.lastTerminated });
        if (once(run, `init-backoff@${init.restartAt}`))
          api.event(
            pod,
            "Warning",
            "BackOff",
            `Back-off restarting failed container ${c.name} in pod ${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`,
            "kubelet",
          );
        return writeThen(api, pod, run, podIp, waitingApp, init.restartAt, {
          waiting: {
            reason: "CrashLoopBackOff",
            message: `back-off ${goDuration(backOffAt(timing.crashBackOffMs, init.restarts))} restarting failed container=${c.name} pod=${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`,
          },
        });
      }
      init.startAt = init.restartAt;
      init.restartAt = undefined;
      init.exitAt = undefined;
      init.restarts += 1;
    }
    const fails = init.index === 0 && initFateOf(pod) === "crash";
    if (now >= init.startAt && once(run, `init-started@${init.index}@${init.startAt}`))
      containerStarted(api, pod, c, "kubelet");
    init.exitAt ??= Math.max(init.startAt + timing.initRunMs, fails ? 0 : init.startAt);
    if (now < init.exitAt)
      return writeThen(api, pod, run, podIp, waitingApp, init.exitAt, {
        running: { startedAt: timestamp(init.startAt) },
      });
    const terminated = {
      exitCode: fails ? 1 : 0,
      reason: fails ? "Error" : "Completed",
      startedAt: timestamp(init.startAt),
      finishedAt: timestamp(init.exitAt),
      containerID: initInstanceId(run, init.index, init.restarts),
    };
    if (fails) {
      const output = outputOf(pod, "fail");
      if (output) {
        logs(pod.metadata.namespace, pod.metadata.name, c.name, output, false);
        logs(pod.metadata.namespace, pod.metadata.name, c.name, output, true);
      }
      init.lastTerminated = terminated;
      if ((pod.spec?.restartPolicy ?? "Always") === "Never") {
        run.done = "Failed";
        write(api, pod, run, podIp, waitingApp, { terminated });
        return undefined;
      }
      init.restartAt = init.exitAt + backOffAt(timing.crashBackOffMs, init.restarts);
      continue;
    }
    init.completed.push(terminated);
    init.index += 1;
    init.startAt = init.exitAt;
    init.exitAt = undefined;
    init.restarts = 0;
    init.lastTerminated = undefined;
  }
}

/** Writes the status, then answers `next` (when the pod changes again). */
function writeThen(
  api: ControllerApi,
  pod: KubeObject,
  run: Run,
  podIp: string,
  state: KubeObject,
  next: number,
  initState?: KubeObject,
): number {
  write(api, pod, run, podIp, state, initState);
  return next;
}

/** Until a container starts, the status keeps saying what it said: a configuration error stays shown. */
function shownBeforeStart(run: Run): KubeObject {
  const shown = run.configMissing;
  return shown && shown.reason !== "FailedMount"
    ? { waiting: { reason: shown.reason, message: shown.message } }
    : creating();
}

function once(run: Run, key: string): boolean {
  if (run.told.has(key)) return false;
  run.told.add(key);
  return true;
}

function creating(): KubeObject {
  return { waiting: { reason: "ContainerCreating" } };
}

/** The runtime's id of the container's current instance: a new one at each restart, as containerd gives. */
function instanceId(run: Run): string {
  return run.restarts === 0 ? run.containerId : `${run.containerId}${run.restarts.toString(16).padStart(4, "0")}`;
}

/** The runtime's id of init container `index`'s instance after `restarts` restarts. */
function initInstanceId(run: Run, index: number, restarts: number): string {
  return `${run.containerId}${(0xf000 + index * 0x100 + restarts).toString(16)}`;
}

/** The Events kubelet v1.32 writes as it (re)starts a container whose image the node has. */
function containerStarted(api: ControllerApi, pod: KubeObject, container: KubeObject, source: string): void {
  api.event(pod, "Normal", "Pulled", `Container image "${container.image}" already present on machine`, source);
  api.event(pod, "Normal", "Created", `Created container: ${container.name}`, source);
  api.event(pod, "Normal", "Started", `Started container ${container.name}`, source);
}

/** What containerd 1.6 says through kubelet v1.32 of an image its registry does not have (no gRPC prefix). */
function pullError(image: string): string {
  return `failed to pull and unpack image "${image}": failed to resolve reference "${image}": ${image}: not found`;
}

/** A duration as Go prints it, as the kubelet's back-off message does: `10s`, `1m20s`, `5m0s`. */
export function goDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${seconds % 60}s`;
}

/**
 * Writes the pod's status for the app container `state` (every app container of the pod shares it) and, while
 * init containers run, `initState` for the one running now (those before it completed, those after it waiting).
 */
function write(
  api: ControllerApi,
  pod: KubeObject,
  run: Run,
  podIp: string,
  state: KubeObject,
  initState?: KubeObject,
): void {
  const now = api.now();
  const running = Boolean(state.running);
  const initSpecs: KubeObject[] = pod.spec?.initContainers ?? [];
  const init = run.init;
  const initialized = initSpecs.length === 0 || init?.doneAt !== undefined;
  const initStatuses = initSpecs.map((c: KubeObject, i: number) => {
    const done = init?.completed[i];
    const current = init && i === init.index && !done;
    const own = done
      ? { terminated: done }
      : current && initState
        ? initState
        : { waiting: { reason: "PodInitializing" } };
    return {
      name: c.name,
      state: own,
      lastState: current && init?.lastTerminated && !own.terminated ? { terminated: init.lastTerminated } : {},
      ready: Boolean(done),
      restartCount: current ? (init?.restarts ?? 0) : 0,
      image: c.image,
      imageID: done || current ? `${String(c.image).split(":")[0]}@sha256:${"0".repeat(63)}${i}` : "",
      ...(done || current ? { containerID: initInstanceId(run, i, current ? (init?.restarts ?? 0) : 0) } : {}),
      started: Boolean(own.running),
    };
  });
  const pendingInit = initSpecs
    .filter((_c: KubeObject, i: number) => !init?.completed[i])
    .map((c: KubeObject) => c.name);
  const ready = running && run.ready;
  const started = run.startAt !== undefined;
  let conditions = pod.status?.conditions;
  const set = (type: string, ok: boolean, reason?: string) => {
    conditions = withCondition(
      conditions,
      { type, status: ok ? "True" : "False", ...(reason && !ok ? { reason } : {}) },
      now,
    );
  };
  // The sandbox (its network) is ready once the pod is past ContainerCreating.
  set("PodReadyToStartContainers", !(state.waiting?.reason === "ContainerCreating" && !started && !initState));
  conditions = withCondition(
    conditions,
    initialized
      ? { type: "Initialized", status: "True" }
      : {
          type: "Initialized",
          status: "False",
          reason: "ContainersNotInitialized",
          message: `containers with incomplete status: [${pendingInit.join(" ")}]`,
        },
    now,
  );
  // A pod that ended: PodCompleted when it succeeded, PodFailed when it failed (kubelet v1.32).
  const ended = run.done === "Failed" ? "PodFailed" : "PodCompleted";
  set("Ready", ready, run.done ? ended : "ContainersNotReady");
  set("ContainersReady", ready, run.done ? ended : "ContainersNotReady");
  set("PodScheduled", true);
  // The kubelet writes the whole list, in this order.
  const order = ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"];
  conditions = [...(conditions ?? [])].sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type));
  // Until its init containers have completed, an app container waits on them, whatever else holds the pod.
  const appState =
    !initialized && state.waiting?.reason === "ContainerCreating" ? { waiting: { reason: "PodInitializing" } } : state;
  const statuses = (pod.spec?.containers ?? []).map((c: KubeObject) => ({
    name: c.name,
    state: appState,
    lastState: run.lastTerminated && !state.terminated ? { terminated: run.lastTerminated } : {},
    ready,
    restartCount: run.restarts,
    image: c.image,
    imageID: started ? `${String(c.image).split(":")[0]}@sha256:${run.containerId.slice(-64).padStart(64, "0")}` : "",
    ...(started ? { containerID: instanceId(run) } : {}),
    started: running,
  }));
  const node = api.get("Node", undefined, pod.spec.nodeName);
  const hostIP = node?.status?.addresses?.find((a: KubeObject) => a.type === "InternalIP")?.address ?? "127.0.0.1";
  api.setStatus(pod, {
    phase: run.done ?? (started ? "Running" : "Pending"),
    conditions,
    hostIP,
    hostIPs: [{ ip: hostIP }],
    podIP: podIp,
    podIPs: [{ ip: podIp }],
    startTime: timestamp(run.boundAt),
    ...(initSpecs.length ? { initContainerStatuses: initStatuses } : {}),
    containerStatuses: statuses,
    qosClass: pod.status?.qosClass ?? "BestEffort",
  });
}

/**
 * What a kubelet that restarted (or came back) answers for the previous instance of its pods' containers (issue
 * 50, seen on a real kubelet v1.32.13): it removed their dead containers as it started, so `--previous` gets its
 * error as the body of a 200 — `unable to retrieve container logs for containerd://…` — until a container ends
 * again. Writes that answer into `logs` for every container of `pods` that has a previous instance.
 */
export function forgetPreviousLogs(pods: readonly KubeObject[], logs: LogSink): void {
  for (const pod of pods)
    for (const s of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])]) {
      const id = s.lastState?.terminated?.containerID;
      if (id)
        logs(pod.metadata.namespace, pod.metadata.name, s.name, `unable to retrieve container logs for ${id}`, true);
    }
}
