import type { Evidence, Finding } from "../model/finding.ts";
import type { Condition, ObjectLike } from "../model/kube.ts";
import type { ObjectRef } from "../model/object-ref.ts";
import { entry, type Reason } from "./catalogue.ts";
import { redact } from "../redact/redact.ts";
import { evidence } from "./evidence.ts";

/**
 * Builds a finding for `reason` from the catalogue: tier, hold (`opensAt` = `since` + hold when the hold has
 * not passed yet at `now`), key `reason/Kind/namespace/name[/part]` (failure-catalogue 0.3). Pure.
 */
export function finding(options: {
  reason: Reason;
  object: ObjectRef;
  summary: string;
  evidence: readonly (readonly [string, unknown])[];
  since: number;
  now: number;
  /** Part of the key after the object: container name, volume, image. */
  part?: string;
  container?: string;
  nodeName?: string;
  /** Overrides the catalogue hold (ms), e.g. CrashLoopBackOff opening at once from 3 restarts. */
  holdMs?: number;
  pageRule?: string;
  recheckAt?: number;
  explains?: readonly ObjectRef[];
  joins?: readonly ObjectRef[];
  /** The hold is a start in progress, not a wait to confirm a failure (Finding.starting). */
  starting?: boolean;
  /** It restates what the pods behind it show (Finding.symptom). */
  symptom?: boolean;
  /** Which instance of its container printed what explains it (Finding.crashedInstance). */
  crashedInstance?: "current" | "previous";
  /** Lost together with most of the cluster's nodes (Finding.clusterWide). */
  clusterWide?: boolean;
}): Finding {
  const e = entry(options.reason);
  const hold = options.holdMs ?? e.holdSeconds * 1000;
  const opensAt = options.since + hold;
  const o = options.object;
  return {
    key: `${options.reason}/${o.kind}/${o.namespace ?? ""}/${o.name}${options.part ? `/${options.part}` : ""}`,
    reason: options.reason,
    object: o,
    ...(options.container ? { container: options.container } : {}),
    tier: e.tier,
    ...(options.pageRule ? { pageRule: options.pageRule } : {}),
    summary: redact(options.summary).text,
    evidence: evidence(options.evidence) as Evidence[],
    ...(options.nodeName ? { nodeName: options.nodeName } : {}),
    since: options.since,
    ...(hold > 0 && opensAt > options.now ? { opensAt } : {}),
    ...(hold > 0 ? { holdMs: hold } : {}),
    ...(options.recheckAt !== undefined ? { recheckAt: options.recheckAt } : {}),
    ...(options.crashedInstance ? { crashedInstance: options.crashedInstance } : {}),
    ...(options.explains ? { explains: options.explains } : {}),
    ...(options.joins ? { joins: options.joins } : {}),
    ...(options.starting && hold > 0 && opensAt > options.now ? { starting: true } : {}),
    ...(options.symptom ? { symptom: true } : {}),
    ...(options.clusterWide ? { clusterWide: true } : {}),
  };
}

/** The reference of an object as findings carry it. */
export function refOf(object: {
  readonly kind?: string;
  readonly metadata?: Partial<ObjectLike["metadata"]>;
}): ObjectRef {
  return {
    kind: String(object.kind),
    ...(object.metadata?.namespace ? { namespace: object.metadata.namespace } : {}),
    name: String(object.metadata?.name ?? ""),
    ...(object.metadata?.uid ? { uid: object.metadata.uid } : {}),
  };
}

/** A condition of an object's status by type. */
export function condition(
  object: { readonly status?: { readonly conditions?: readonly Condition[] } },
  type: string,
): Condition | undefined {
  return (object.status?.conditions ?? []).find((c) => c.type === type);
}
