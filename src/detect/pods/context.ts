import type { InventoryView } from "../../model/inventory.ts";
import type { Container, Pod, TerminatedState } from "../../model/kube.ts";
import { redact } from "../../redact/redact.ts";
import type { refOf } from "../build.ts";
import type { TimeEdges } from "../incremental.ts";
import type { PodCountsView } from "./counts.ts";

/** What every rule of the pod family reads of one pod in one pass. */
export interface PodContext {
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

/** Terminated reasons of a container that could not start: told as such, not as a crash. */
export const RUN_ERRORS = new Set(["StartError", "ContainerCannotRun"]);

/** Whether the kubelet will not start the pod's containers again (restartPolicy Never, or OnFailure once Failed). */
export function willNotRestart(pod: Pod): boolean {
  return (
    pod.spec?.restartPolicy === "Never" || (pod.spec?.restartPolicy === "OnFailure" && pod.status?.phase === "Failed")
  );
}

/** An exit code with its reason, `137 (OOMKilled)`. */
export function describeExit(t: TerminatedState): string {
  return `${t.exitCode}${t.reason ? ` (${t.reason})` : ""}`;
}

/** A container's memory limit, as written in its spec. */
export function memoryLimit(pod: Pod, container: string): string | undefined {
  return containerSpec(pod, container)?.resources?.limits?.memory;
}

const SPECS = new WeakMap<Pod, Map<string, Container>>();

/**
 * A container's spec by name (init containers too), from a per-pod index built once: a pod with a thousand
 * containers costs a thousand lookups, not a million comparisons.
 */
export function containerSpec(pod: Pod, name: string): Container | undefined {
  let specs = SPECS.get(pod);
  if (!specs) {
    specs = new Map();
    for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) specs.set(c.name, c);
    SPECS.set(pod, specs);
  }
  return specs.get(name);
}

/** Pods a workload expects to serve: owned by a ReplicaSet or StatefulSet (not Jobs, whose pods are not probed for traffic). */
export function servesTraffic(pod: Pod): boolean {
  return (pod.metadata.ownerReferences ?? []).some((r) => r.kind === "ReplicaSet" || r.kind === "StatefulSet");
}

/** The last line a container wrote, picked after redaction: a private key spans many lines (spec 6.8). */
export function lastLine(text: string): string {
  const lines = redact(String(text)).text.trim().split("\n");
  return (lines[lines.length - 1] ?? "").trim();
}
