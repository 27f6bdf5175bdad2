import type { Finding } from "../model/finding.ts";
import type { InventoryChange, InventoryView } from "../model/inventory.ts";
import type { Container, ContainerStatus, ObjectLike, Pod, TerminatedState } from "../model/kube.ts";
import { condition, finding, refOf } from "./build.ts";
import { CONFIG_RETRY_MS, configFixedAt } from "./config-fixed.ts";
import { parseTime } from "./evidence.ts";
import { redact } from "../redact/redact.ts";
import { exitClass } from "./exit-codes.ts";
import { readyCondition } from "./nodes.ts";
import { controllerUid, FINDING_RESULTS, isPartial, ObjectMemo, sortedByKey, TimeEdges } from "./incremental.ts";

const IMAGE_PULL = new Set(["ImagePullBackOff", "ErrImagePull"]);
const IMAGE_UNAVAILABLE = new Set([
  "ErrImageNeverPull",
  "ImageInspectError",
  "RegistryUnavailable",
  "SignatureValidationFailed",
]);
const RUN_ERRORS = new Set(["StartError", "ContainerCannotRun"]);
const OOM_MEMORY_MS = 60 * 60_000;
const STUCK_TERMINATING_MS = 5 * 60_000;

/**
 * The pod family (spec 1.2; failure-catalogue 1.A): every container waiting and terminated reason, init
 * containers, evicted / preempted / rejected pods, unschedulable Pending pods, pods stuck terminating, pods
 * that run but are not ready, and pods lost with their node. Each finding carries the evidence an engineer
 * acts on; holds come from the catalogue and are measured from the object's own timestamps. Pure.
 */
export function detectPods(inventory: InventoryView, now: number): Finding[] {
  const counts = passCounts(inventory);
  const out: Finding[] = [];
  for (const pod of inventory.list("Pod")) out.push(...detectPod(pod, inventory, new TimeEdges(now), counts));
  // One order for the full and the incremental family, whatever order the pods were listed in.
  return sortedByKey(out);
}

/**
 * What the pod family reads of the other pods: ready pods per controller uid, and pods per controller,
 * container and image (see imageKey). Counted per pass by `detectPods`, kept up to date change by change by
 * the incremental family (`PodCounts`).
 */
export interface PodCountsView {
  readyOf(ownerUid: string): number;
  /** Pods of the controller with uid `owner` whose `container` runs `image`, with image id `imageId` or any. */
  podsRunning(owner: string, container: string, image: string, imageId?: string): number;
}

/**
 * The findings of one pod (the pod family for one object): what `detectPods` returns for it. Reads the
 * Inventory only through `inventory` and time only through `time`, so the incremental family
 * (`createIncrementalPods`) knows when the result can change. Pure.
 */
export function detectPod(pod: Pod, inventory: InventoryView, time: TimeEdges, counts: PodCountsView): Finding[] {
  if (pod.status?.phase === "Succeeded") return [];
  const now = time.now;
  const nodeName: string | undefined = pod.spec?.nodeName || undefined;
  const node = nodeName ? inventory.get("Node", undefined, nodeName) : undefined;
  const nodeReady = node ? readyCondition(node) : undefined;
  const ctx: PodContext = {
    pod,
    now,
    time,
    ref: refOf({ ...pod, kind: "Pod" }),
    name: `${pod.metadata.namespace}/${pod.metadata.name}`,
    nodeName,
    nodeReadyAt: nodeReady?.status === "True" ? parseTime(nodeReady.lastTransitionTime, 0) : 0,
    watchesSecrets: () => inventory.watches("Secret"),
    inventory,
    readyOf: counts.readyOf,
    podsRunning: counts.podsRunning,
  };
  if (node && nodeReady && nodeReady.status !== "True") {
    return [
      finding({
        reason: "PodNodeLost",
        object: ctx.ref,
        summary: `pod ${ctx.name} went down with node ${nodeName}`,
        evidence: [
          ["node", nodeName],
          ["node not ready since", nodeReady.lastTransitionTime],
        ],
        since: time.time(nodeReady.lastTransitionTime),
        now,
        nodeName: nodeName ?? "",
      }),
    ];
  }
  if (pod.metadata?.deletionTimestamp) {
    const stuck = terminating(ctx, ctx.nodeReadyAt);
    return stuck ? [stuck] : [];
  }
  const failedPod = podFailure(ctx);
  if (failedPod) return [failedPod];
  const unscheduled = condition(pod, "PodScheduled");
  if (pod.status?.phase === "Pending" && unscheduled?.status === "False" && unscheduled.reason === "Unschedulable") {
    return [
      finding({
        reason: "FailedScheduling",
        object: ctx.ref,
        summary: `pod ${ctx.name} cannot be scheduled: ${unscheduled.message ?? "no node fits"}`,
        evidence: [["scheduler", unscheduled.message]],
        since: time.time(unscheduled.lastTransitionTime),
        now,
      }),
    ];
  }
  return [...initContainers(ctx), ...containers(ctx)];
}

/**
 * The pod family, incremental (ARCHITECTURE.md "The pass"): a pod's findings are computed again only when
 * it changed, when what it read changed (its node, a ConfigMap or Secret it waits for, the Services of its
 * namespace, the pods of its controller), or when time reached an instant its result depends on. `noteChange`
 * takes every Inventory change (Inventory.subscribe); `detect` is the family's detector. Its result equals
 * `detectPods` on the same Inventory and time (incremental.test.ts). The counts of other pods are kept change
 * by change, counted once from the Inventory on the first pass.
 */
export function createIncrementalPods(): {
  detect: (inventory: InventoryView, now: number) => Finding[];
  noteChange: (change: InventoryChange, keysOf?: () => readonly string[]) => void;
  /** Pods evaluated in the last pass (the others were reused). */
  evaluated: () => number;
  /** The earliest instant after `now` a remembered pod's findings change with time alone (ObjectMemo.nextEdge). */
  nextEdge: (now: number) => number | undefined;
} {
  const memo = new ObjectMemo<Pod>({
    kind: "Pod",
    ...FINDING_RESULTS,
    localKeys: (pod) => (pod.spec?.nodeName ? [`obj:Node//${pod.spec.nodeName}`] : []),
    // A Node's change concerns the pods on it (the Inventory indexes them).
    reach: {
      kinds: ["Node"],
      objects: (change, inventory) =>
        [change.previous, change.next].flatMap((n) => (n ? inventory.podsOnNode(n.metadata?.name ?? "") : [])),
    },
  });
  let counts: PodCounts | undefined;
  return {
    noteChange(change, keysOf) {
      memo.noteChange(change, keysOf);
      if (change.kind === "Pod" && counts) counts.apply(change.previous as Pod, change.next as Pod);
    },
    detect(inventory, now) {
      // Some objects set aside (detect/isolate.ts): this pass evaluates every pod, and the memory waits.
      if (isPartial(inventory)) return detectPods(inventory, now);
      counts ??= PodCounts.of(inventory.list("Pod"));
      const known = counts;
      return memo.run(inventory, now, (pod, view, time) =>
        detectPod(pod, view, time, {
          readyOf: (uid) => {
            view.extra(`ctrl:${uid}`);
            return known.readyOf(uid);
          },
          podsRunning: (owner, container, image, imageId) => {
            view.extra(`ctrl:${owner}`);
            return known.podsRunning(owner, container, image, imageId);
          },
        }),
      );
    },
    evaluated: () => memo.evaluated,
    nextEdge: (now) => memo.nextEdge(now),
  };
}

/** The counts of `PodCountsView`, kept change by change: each pod adds its share and a change moves it. */
export class PodCounts implements PodCountsView {
  private readonly ready = new Map<string, number>();
  private readonly images = new Map<string, number>();

  /** Counts over `pods`. */
  static of(pods: readonly Pod[]): PodCounts {
    const counts = new PodCounts();
    for (const p of pods) counts.apply(undefined, p);
    return counts;
  }

  /** A pod changed from `previous` to `next` (either undefined: created or deleted). */
  apply(previous: Pod | undefined, next: Pod | undefined): void {
    if (previous) this.share(previous, -1);
    if (next) this.share(next, 1);
  }

  readyOf = (ownerUid: string): number => this.ready.get(ownerUid) ?? 0;
  podsRunning = (owner: string, container: string, image: string, imageId?: string): number =>
    this.images.get(imageKey(owner, container, image, imageId)) ?? 0;

  // --- internal ---

  private share(p: Pod, sign: 1 | -1): void {
    const uid = controllerUid(p);
    if (!uid) return;
    if (condition(p, "Ready")?.status === "True") bump(this.ready, uid, sign);
    for (const c of p.status?.containerStatuses ?? []) {
      if (!c.imageID || !c.image) continue;
      bump(this.images, imageKey(uid, c.name, c.image), sign);
      bump(this.images, imageKey(uid, c.name, c.image, c.imageID), sign);
    }
  }
}

// --- internal ---

interface PodContext {
  readonly pod: Pod;
  readonly now: number;
  /** Every comparison with `now` goes through it (incremental passes). */
  readonly time: TimeEdges;
  readonly ref: ReturnType<typeof refOf>;
  readonly name: string;
  readonly nodeName?: string;
  /** When the pod's node last turned Ready (epoch ms), 0 when unknown: what a pod shows before is its node's doing. */
  readonly nodeReadyAt: number;
  /** Read only where it matters, so a healthy pod reads nothing but its node (incremental passes). */
  readonly watchesSecrets: () => boolean;
  /** Ready pods of the controller with this uid. */
  readonly readyOf: (ownerUid: string) => number;
  /** Pods of a controller running an image (PodCountsView.podsRunning). */
  readonly podsRunning: PodCountsView["podsRunning"];
  readonly inventory: InventoryView;
}

/**
 * A pod stuck terminating: still there 5 minutes after its grace period ended. The kubelet finishes a
 * deletion, so the time counts only from when the pod's node was Ready (`nodeReadyAt`, epoch ms; 0 when
 * unknown): a pod deleted while its node was down is not stuck until its node is back and does nothing.
 */
function terminating(ctx: PodContext, nodeReadyAt: number): Finding | undefined {
  const { pod, now, time } = ctx;
  const deadline = Math.max(
    time.time(pod.metadata.deletionTimestamp) + (pod.metadata.deletionGracePeriodSeconds ?? 0) * 1000,
    nodeReadyAt,
  );
  if (time.before(deadline + STUCK_TERMINATING_MS)) return undefined;
  const finalizers = (pod.metadata.finalizers ?? []).join(", ");
  return finding({
    reason: "PodStuckTerminating",
    object: ctx.ref,
    summary: `pod ${ctx.name} has been terminating since ${pod.metadata.deletionTimestamp}${finalizers ? `; finalizers: ${finalizers}` : ""}`,
    evidence: [
      ["deletion requested", pod.metadata.deletionTimestamp],
      ["finalizers", finalizers],
      ["node", ctx.nodeName],
    ],
    since: deadline,
    now,
    ...(ctx.nodeName ? { nodeName: ctx.nodeName } : {}),
  });
}

function podFailure(ctx: PodContext): Finding | undefined {
  const { pod, now } = ctx;
  const reason: string = pod.status?.reason ?? "";
  const message: string = pod.status?.message ?? "";
  const preempted = condition(pod, "DisruptionTarget")?.reason === "PreemptionByScheduler" || reason === "Preempting";
  if (pod.status?.phase !== "Failed" && !preempted) return undefined;
  const since = ctx.time.time(pod.status?.startTime ?? pod.metadata?.creationTimestamp);
  const common = { object: ctx.ref, since, now, ...(ctx.nodeName ? { nodeName: ctx.nodeName } : {}) };
  const evidence: [string, unknown][] = [
    ["node", ctx.nodeName],
    ["reason", reason],
    ["message", message],
  ];
  if (reason === "Evicted")
    return finding({
      ...common,
      reason: "PodEvicted",
      summary: `pod ${ctx.name} was evicted from ${ctx.nodeName ?? "its node"}: ${message || "no message"}`,
      evidence,
    });
  if (preempted)
    return finding({
      ...common,
      reason: "PodPreempted",
      summary: `pod ${ctx.name} was preempted on ${ctx.nodeName ?? "its node"}`,
      evidence,
    });
  if (/^OutOf/.test(reason) || reason === "NodeAffinity" || reason === "NodeShutdown")
    return finding({
      ...common,
      reason: "PodAdmissionRejected",
      summary: `pod ${ctx.name} was rejected by the kubelet on ${ctx.nodeName ?? "its node"}: ${reason} — ${message}`,
      evidence,
    });
  if (reason === "UnexpectedAdmissionError")
    return finding({
      ...common,
      reason: "UnexpectedAdmissionError",
      summary: `pod ${ctx.name} could not be admitted on ${ctx.nodeName ?? "its node"}: ${message}`,
      evidence,
    });
  return undefined;
}

function initContainers(ctx: PodContext): Finding[] {
  const { pod, now } = ctx;
  if (condition(pod, "Initialized")?.status !== "False") return [];
  const out: Finding[] = [];
  for (const s of pod.status?.initContainerStatuses ?? []) {
    const last = s.state?.terminated ?? s.lastState?.terminated;
    const failing = s.state?.waiting?.reason === "CrashLoopBackOff" || (last && last.exitCode !== 0);
    if (!failing) continue;
    const output = last?.message ? `: "${lastLine(last.message)}"` : "";
    out.push(
      finding({
        reason: "InitContainerFailed",
        object: ctx.ref,
        part: s.name,
        container: `${s.name} (init)`,
        summary: `pod ${ctx.name} is stuck in init: ${s.name} exit ${last?.exitCode ?? "?"} after ${s.restartCount ?? 0} tries${output}`,
        evidence: [
          ["container", `${s.name} (init)`],
          ["exit code", last ? describeExit(last) : undefined],
          ["restarts", s.restartCount],
          ["last output", last?.message ? lastLine(last.message) : undefined],
          ["image", s.image],
        ],
        since: ctx.time.time(pod.status?.startTime),
        now,
        ...(ctx.nodeName ? { nodeName: ctx.nodeName } : {}),
      }),
    );
  }
  return out;
}

function containers(ctx: PodContext): Finding[] {
  const out: Finding[] = [];
  for (const s of ctx.pod.status?.containerStatuses ?? []) {
    const found = container(ctx, s);
    if (found) out.push(found);
  }
  return out;
}

function container(ctx: PodContext, s: ContainerStatus): Finding | undefined {
  const { pod, now } = ctx;
  const waiting = s.state?.waiting;
  const terminated = s.state?.terminated;
  const last = s.lastState?.terminated;
  const started = ctx.time.time(pod.status?.startTime ?? pod.metadata?.creationTimestamp);
  const base = {
    object: ctx.ref,
    part: s.name,
    container: s.name,
    now,
    ...(ctx.nodeName ? { nodeName: ctx.nodeName } : {}),
  };
  const restarts = s.restartCount ?? 0;
  const common: [string, unknown][] = [
    ["container", s.name],
    ["restarts", restarts],
    ["image", s.image],
    ["node", ctx.nodeName],
  ];
  const limit = memoryLimit(pod, s.name);

  const oom =
    terminated?.reason === "OOMKilled"
      ? terminated
      : last?.reason === "OOMKilled" && (waiting || ctx.time.before(parseTime(last.finishedAt, 0) + OOM_MEMORY_MS))
        ? last
        : undefined;
  if (oom) {
    // What it cost (spec 1.6): without a memory limit the node's memory ran out first.
    const cost = limit
      ? `memory limit ${limit}`
      : "the container has no memory limit, so the node ran out of memory first";
    return finding({
      ...base,
      reason: "OOMKilled",
      summary: `container ${s.name} of pod ${ctx.name} was OOM-killed (${cost}); ${restarts} restarts`,
      evidence: [
        ...common,
        ["exit code", describeExit(oom)],
        ["memory limit", limit ?? "none"],
        ["last termination", oom.finishedAt],
      ],
      since: parseTime(oom.finishedAt, started),
    });
  }
  // Between two crashes the container has just exited, or runs again for a moment: still crash-looping until
  // its recovery is confirmed (rule 6: it stayed up longer than its last back-off, at least 10 s, or its
  // readiness probe says ready).
  const between = crashLoopingBetweenCrashes(pod, s, ctx.time);
  if (waiting?.reason === "CrashLoopBackOff" || between) {
    const crash = waiting?.reason === "CrashLoopBackOff" ? last : between?.crash;
    const output = crash?.message ? `; last output: "${lastLine(crash.message)}"` : "";
    const cost = crashCost(ctx, s);
    return finding({
      ...base,
      reason: "CrashLoopBackOff",
      summary: `container ${s.name} of pod ${ctx.name} is crash-looping: exit ${crash ? describeExit(crash) : "unknown"}, ${restarts} restarts${output}${cost.length ? `; what it cost: ${cost.join("; ")}` : ""}`,
      evidence: [
        ...common,
        ["exit code", crash ? describeExit(crash) : undefined],
        ["exit class", crash ? exitClass(crash.exitCode) : undefined],
        ["last output", crash?.message ? lastLine(crash.message) : undefined],
        ["last termination", crash?.finishedAt],
        ["back-off", waiting?.message],
      ],
      since: started,
      // Opens at once from 3 restarts; a first crash gets 3 minutes to recover (failure-catalogue A1).
      holdMs: restarts >= 3 ? 0 : 180_000,
      ...(between?.confirmedAt !== undefined ? { recheckAt: between.confirmedAt } : {}),
    });
  }
  if (waiting?.reason && IMAGE_PULL.has(waiting.reason)) {
    return finding({
      ...base,
      part: `${s.name}/${s.image}`,
      reason: "ImagePullBackOff",
      summary: `pod ${ctx.name} cannot pull image ${s.image}: ${waiting.message ?? waiting.reason}`,
      evidence: [
        ["container", s.name],
        ["image", s.image],
        ["state", waiting.reason],
        ["message", waiting.message],
        ["pull secrets", (pod.spec?.imagePullSecrets ?? []).map((x) => x.name).join(", ") || "none"],
        ["node", ctx.nodeName],
      ],
      since: started,
    });
  }
  if (waiting?.reason === "InvalidImageName") {
    return finding({
      ...base,
      reason: "InvalidImageName",
      summary: `container ${s.name} of pod ${ctx.name}: image reference "${s.image}" cannot be parsed`,
      evidence: [
        ["container", s.name],
        ["image", s.image],
        ["message", waiting.message],
      ],
      since: started,
    });
  }
  if (waiting?.reason && IMAGE_UNAVAILABLE.has(waiting.reason)) {
    return finding({
      ...base,
      reason: "ImageUnavailable",
      summary: `container ${s.name} of pod ${ctx.name}: ${waiting.reason} for ${s.image}${waiting.message ? `: ${waiting.message}` : ""}`,
      evidence: [
        ["container", s.name],
        ["image", s.image],
        ["state", waiting.reason],
        ["message", waiting.message],
        ["node", ctx.nodeName],
      ],
      since: started,
    });
  }
  // The object the kubelet could not find exists now: its next retry starts the container (recovery is quiet).
  const fixedAt = configFixedAt(pod, s, ctx.inventory);
  const fixed = fixedAt !== undefined && ctx.time.before(fixedAt + CONFIG_RETRY_MS);
  if (waiting?.reason === "CreateContainerConfigError" && !fixed) {
    // With Secrets not watched, mon cannot tell whether a named Secret exists: it says so (spec 2.1 watch.secrets).
    const unverifiable =
      /secret/i.test(waiting.message ?? "") && !ctx.watchesSecrets()
        ? "cannot verify: Secrets are not watched (watch.secrets is false)"
        : undefined;
    return finding({
      ...base,
      reason: "CreateContainerConfigError",
      summary: `container ${s.name} of pod ${ctx.name} cannot be configured: ${waiting.message ?? "configuration error"}`,
      evidence: [
        ["container", s.name],
        ["message", waiting.message],
        ["image", s.image],
        ["secret check", unverifiable],
      ],
      since: started,
    });
  }
  if (waiting?.reason === "CreateContainerError") {
    return finding({
      ...base,
      reason: "CreateContainerError",
      summary: `container ${s.name} of pod ${ctx.name}: the runtime on ${ctx.nodeName ?? "its node"} could not create it: ${waiting.message ?? ""}`,
      evidence: [
        ["container", s.name],
        ["message", waiting.message],
        ["node", ctx.nodeName],
      ],
      since: started,
    });
  }
  const runError =
    waiting?.reason === "RunContainerError"
      ? last
      : terminated?.reason && RUN_ERRORS.has(terminated.reason)
        ? terminated
        : undefined;
  if (waiting?.reason === "RunContainerError" || runError) {
    const message = runError?.message ?? waiting?.message ?? "";
    return finding({
      ...base,
      reason: "RunContainerError",
      summary: `container ${s.name} of pod ${ctx.name} could not start: ${message}`,
      evidence: [...common, ["exit code", runError ? describeExit(runError) : undefined], ["message", message]],
      since: started,
    });
  }
  if (terminated?.reason === "ContainerStatusUnknown") {
    return finding({
      ...base,
      reason: "ContainerStatusUnknown",
      summary: `container ${s.name} of pod ${ctx.name}: the runtime lost the container (node ${ctx.nodeName ?? "?"} restarted or was lost)`,
      evidence: [...common, ["message", terminated.message]],
      since: parseTime(terminated.finishedAt, started),
    });
  }
  if (terminated && terminated.exitCode !== 0 && willNotRestart(pod)) {
    return finding({
      ...base,
      reason: "ContainerExitedNonZero",
      summary: `container ${s.name} of pod ${ctx.name} exited ${describeExit(terminated)}, ${exitClass(terminated.exitCode)}${terminated.message ? `: "${lastLine(terminated.message)}"` : ""}`,
      evidence: [
        ...common,
        ["exit code", describeExit(terminated)],
        ["exit class", exitClass(terminated.exitCode)],
        ["last output", terminated.message ? lastLine(terminated.message) : undefined],
        ["finished", terminated.finishedAt],
      ],
      since: parseTime(terminated.finishedAt, started),
    });
  }
  const ready = condition(pod, "Ready");
  if (
    pod.status?.phase === "Running" &&
    s.state?.running &&
    s.started !== false &&
    s.ready === false &&
    servesTraffic(pod) &&
    ready?.status === "False"
  ) {
    // Never ready since it started while its siblings serve: a cost worth knowing, not a failure happening
    // now (spec 1.6) — it goes to the digest.
    const controller = (pod.metadata.ownerReferences ?? []).find((r) => r.controller);
    const others = controller ? ctx.readyOf(controller.uid) : 0;
    const neverReady = parseTime(ready.lastTransitionTime, 0) <= parseTime(s.state.running.startedAt, 0);
    // Not ready counts from when its node is Ready: the node lifecycle controller marks the pods of a lost node
    // not ready, and after the node is back their readiness is a start in progress, not a failing probe.
    const notReadySince = Math.max(parseTime(ready.lastTransitionTime, started), ctx.nodeReadyAt);
    if (controller && others > 0 && neverReady) {
      return finding({
        ...base,
        reason: "PodNeverReady",
        summary: `pod ${ctx.name} runs but has never been ready while ${others} other pod${others === 1 ? "" : "s"} of ${controller.kind} ${controller.name} serve`,
        evidence: [...common, ["ready siblings", others], ["message", ready.message]],
        since: notReadySince,
      });
    }
    return finding({
      ...base,
      reason: "ReadinessProbeFailing",
      summary: `pod ${ctx.name} runs but container ${s.name} has not been ready since ${ready.lastTransitionTime ?? "it started"}`,
      evidence: [...common, ["not ready since", ready.lastTransitionTime], ["message", ready.message]],
      since: notReadySince,
    });
  }
  return undefined;
}

/** Key of the image counts: a controller's container running `image`, with one `imageId` or any. */
function imageKey(owner: string, container: string, image: string, imageId?: string): string {
  return `${owner}\0${container}\0${image}${imageId === undefined ? "" : `\0${imageId}`}`;
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n === 0) counts.delete(key);
  else counts.set(key, n);
}

/** The counts of one pass's pods, made the first time a pod asks (most passes no pod asks). */
function passCounts(inventory: InventoryView): PodCountsView {
  let counts: PodCounts | undefined;
  const all = () => (counts ??= PodCounts.of(inventory.list("Pod")));
  return {
    readyOf: (uid) => all().readyOf(uid),
    podsRunning: (owner, container, image, imageId) => all().podsRunning(owner, container, image, imageId),
  };
}

/** The least time a restarted container must stay up before its crash loop counts as over, ms. */
const CRASH_RECOVERY_MIN_MS = 10_000;
/** The kubelet forgets a container's back-off after it ran this long: a longer run is a recovery whatever came before, ms. */
const CRASH_RESET_MS = 10 * 60_000;

/**
 * A container of a restarting pod caught between two crashes (rule "no flapping"): it has just exited
 * non-zero — its first crash included, before the kubelet backs off or counts a restart — or it runs again
 * after a non-zero exit and its recovery is not confirmed yet. Recovery is confirmed from what was observed,
 * whatever the back-off schedule: the new run has lasted twice as long as the run that crashed, longer than
 * the back-off before it, and at least CRASH_RECOVERY_MIN_MS; a run of CRASH_RESET_MS always confirms it.
 * A readiness probe saying ready confirms nothing: a container can pass it and crash a second later.
 * Returns the crash it is in and when the recovery would be confirmed; undefined when it is not crash-looping.
 */
function crashLoopingBetweenCrashes(
  pod: Pod,
  s: ContainerStatus,
  time: TimeEdges,
): { crash: TerminatedState; confirmedAt?: number } | undefined {
  if (willNotRestart(pod)) return undefined;
  const exited = s.state?.terminated;
  // A container that could not start (StartError) or that the runtime lost is told as such, not as a crash.
  if (
    exited &&
    exited.exitCode !== 0 &&
    !RUN_ERRORS.has(exited.reason ?? "") &&
    exited.reason !== "ContainerStatusUnknown"
  )
    return { crash: exited };
  if ((s.restartCount ?? 0) < 1) return undefined;
  const crash = s.lastState?.terminated;
  const running = s.state?.running;
  if (!running || !crash || crash.exitCode === 0) return undefined;
  const startedAt = time.time(running.startedAt);
  const finishedAt = parseTime(crash.finishedAt, startedAt);
  const backoff = Math.max(0, startedAt - finishedAt);
  const lastRun = Math.max(0, finishedAt - parseTime(crash.startedAt, finishedAt));
  const needed = Math.min(CRASH_RESET_MS, Math.max(2 * lastRun, backoff, CRASH_RECOVERY_MIN_MS));
  const confirmedAt = startedAt + needed;
  return time.before(confirmedAt) ? { crash, confirmedAt } : undefined;
}

function willNotRestart(pod: Pod): boolean {
  return (
    pod.spec?.restartPolicy === "Never" || (pod.spec?.restartPolicy === "OnFailure" && pod.status?.phase === "Failed")
  );
}

/** Pods a workload expects to serve: owned by a ReplicaSet or StatefulSet (not Jobs, whose pods are not probed for traffic). */
function servesTraffic(pod: Pod): boolean {
  return (pod.metadata.ownerReferences ?? []).some((r) => r.kind === "ReplicaSet" || r.kind === "StatefulSet");
}

function describeExit(t: TerminatedState): string {
  return `${t.exitCode}${t.reason ? ` (${t.reason})` : ""}`;
}

/**
 * What a crash loop shows a risky setting cost (spec 1.6), never the setting on its own: without a readiness
 * probe, a Service selecting the pod kept sending it traffic between crashes; with a mutable tag (`latest` or
 * none), pods of the same controller run different images under one name.
 */
function crashCost(ctx: PodContext, s: ContainerStatus): string[] {
  const out: string[] = [];
  const { pod } = ctx;
  const spec = containerSpec(pod, s.name);
  if (spec && !spec.readinessProbe) {
    const service = selectingService(ctx);
    if (service)
      out.push(`no readiness probe, so service ${service.metadata.name} kept sending it traffic between crashes`);
  }
  const image = s.image ?? spec?.image ?? "";
  const tag = /^[^@]*?(?::([^/:@]+))?$/.exec(image)?.[1];
  const mutable = !image.includes("@") && (tag === undefined || tag === "latest");
  const owner = pod.metadata?.ownerReferences?.find((o) => o.controller)?.uid;
  if (mutable && owner && s.imageID) {
    // Pods of this controller running the same name under another image id.
    const others = ctx.podsRunning(owner, s.name, image) - ctx.podsRunning(owner, s.name, image, s.imageID);
    if (others > 0)
      out.push(
        `the mutable tag ${tag ?? "(none)"} of ${image} resolves to a different image in ${others} other pod${others === 1 ? "" : "s"}`,
      );
  }
  return out;
}

function memoryLimit(pod: Pod, container: string): string | undefined {
  return containerSpec(pod, container)?.resources?.limits?.memory;
}

const SPECS = new WeakMap<Pod, Map<string, Container>>();

/**
 * A container's spec by name (init containers too), from a per-pod index built once: a pod with a thousand
 * containers costs a thousand lookups, not a million comparisons.
 */
function containerSpec(pod: Pod, name: string): Container | undefined {
  let specs = SPECS.get(pod);
  if (!specs) {
    specs = new Map();
    for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) specs.set(c.name, c);
    SPECS.set(pod, specs);
  }
  return specs.get(name);
}

const SELECTING = new WeakMap<PodContext, ObjectLike | null>();

/** The first Service of the pod's namespace whose selector matches its labels, found once per pod and pass. */
function selectingService(ctx: PodContext): ObjectLike | undefined {
  const { pod, inventory } = ctx;
  const known = SELECTING.get(ctx);
  if (known !== undefined) return known ?? undefined;
  const labels = pod.metadata?.labels ?? {};
  const service = inventory.list("Service").find((svc) => {
    const selector = svc.spec?.selector as Record<string, string> | undefined;
    return (
      svc.metadata.namespace === pod.metadata?.namespace &&
      selector &&
      Object.keys(selector).length > 0 &&
      Object.entries(selector).every(([k, v]) => labels[k] === v)
    );
  });
  SELECTING.set(ctx, service ?? null);
  return service;
}

/** The last line a container wrote, picked after redaction: a private key spans many lines (spec 6.8). */
function lastLine(text: string): string {
  const lines = redact(String(text)).text.trim().split("\n");
  return (lines[lines.length - 1] ?? "").trim();
}
