import type { Finding } from "../../model/finding.ts";
import type { ContainerStatus, TerminatedState, WaitingState } from "../../model/kube.ts";
import { type PodContext, memoryLimit } from "./context.ts";
import { crashLoop, oomKilled } from "./crash.ts";
import { notReady } from "./readiness.ts";
import { exitedNonZero, runError, statusUnknown } from "./terminated.ts";
import { waitingReason } from "./waiting.ts";

/** What every container rule reads: the pod's context, the container's status and what is common to its findings. */
export interface ContainerContext {
  readonly ctx: PodContext;
  readonly s: ContainerStatus;
  readonly waiting?: WaitingState;
  readonly terminated?: TerminatedState;
  /** The container's previous termination. */
  readonly last?: TerminatedState;
  /** When the pod started (epoch ms): the default `since` of a finding. */
  readonly started: number;
  readonly restarts: number;
  /** The container's memory limit, as written. */
  readonly limit?: string;
  /** The object, part, container, time and node of every finding of this container. */
  readonly base: {
    readonly object: PodContext["ref"];
    readonly part: string;
    readonly container: string;
    readonly now: number;
    readonly nodeName?: string;
  };
  /** The evidence every container finding starts with: container, restarts, image, node. */
  readonly common: [string, unknown][];
}

/** One rule of a container: its finding, or undefined when the rule does not apply. */
export type ContainerRule = (c: ContainerContext) => Finding | undefined;

/**
 * The container rules in the order they are tried (the first that applies wins): an OOM kill, a crash loop
 * (also between two crashes), a waiting reason (waiting.ts: image pull, configuration, creation), a container
 * that could not run, one the runtime lost, one that will not restart after a non-zero exit, then a running
 * container that is not ready.
 */
export const CONTAINER_RULES: readonly ContainerRule[] = [
  oomKilled,
  crashLoop,
  waitingReason,
  runError,
  statusUnknown,
  exitedNonZero,
  notReady,
];

/** The findings of a pod's containers: one per container at most. */
export function containers(ctx: PodContext): Finding[] {
  const out: Finding[] = [];
  for (const s of ctx.pod.status?.containerStatuses ?? []) {
    const c = containerContext(ctx, s);
    for (const rule of CONTAINER_RULES) {
      const found = rule(c);
      if (found) {
        out.push(found);
        break;
      }
    }
  }
  return out;
}

function containerContext(ctx: PodContext, s: ContainerStatus): ContainerContext {
  const { pod, now } = ctx;
  const restarts = s.restartCount ?? 0;
  const limit = memoryLimit(pod, s.name);
  const waiting = s.state?.waiting;
  const terminated = s.state?.terminated;
  const last = s.lastState?.terminated;
  return {
    ctx,
    s,
    ...(waiting ? { waiting } : {}),
    ...(terminated ? { terminated } : {}),
    ...(last ? { last } : {}),
    started: ctx.time.time(pod.status?.startTime ?? pod.metadata?.creationTimestamp),
    restarts,
    ...(limit !== undefined ? { limit } : {}),
    base: {
      object: ctx.ref,
      part: s.name,
      container: s.name,
      now,
      ...(ctx.nodeName ? { nodeName: ctx.nodeName } : {}),
    },
    common: [
      ["container", s.name],
      ["restarts", restarts],
      ["image", s.image],
      ["node", ctx.nodeName],
    ],
  };
}
