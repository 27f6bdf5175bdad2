import { affectedPods, type Finding, isSymptom } from "../model/finding.ts";
import { refKey } from "../model/object-ref.ts";
import type { DeliveryMode } from "../model/severity.ts";

/**
 * The facts of an incident the user is told about (spec 3.1 "something new is true"): each distinct reason,
 * paging, and the number of affected objects in steps (1, 2, 3, 5, 10, 20, 50, 100...). Restart counts,
 * timestamps and replaced pod names are not facts: they change without anything new being true. Neither are
 * the reasons of symptoms once a cause is in the incident (a workload without available replica, a rollout
 * past its deadline, a Service without endpoints, behind a crash loop): they follow from what was told, and
 * whether they come before or after the announcement is only a matter of timing. Nor are the reasons of the
 * objects a cause explains (a missing Secret's pods that cannot start), which are counted among the affected.
 * Each fact is a stable string; its human sentence comes from `describeFact`.
 */
export function incidentFacts(findings: readonly Finding[], mode: DeliveryMode): string[] {
  const facts = new Set<string>();
  const hasCause = findings.some((f) => !isSymptom(f));
  // What a cause in the incident explains — a missing ConfigMap's pods failing to mount it — is that cause at
  // work, told with it, not something new (issue 52 item 12).
  const explained = new Set(findings.flatMap((f) => (f.explains ?? []).map(refKey)));
  for (const f of findings) {
    if (hasCause && isSymptom(f)) continue;
    if (!f.explains?.length && explained.has(refKey(f.object))) continue;
    facts.add(`reason:${f.reason}`);
  }
  if (mode === "page") facts.add("paging");
  // Counts say what they count: pods, not the Secret or the Deployment that are in the incident too.
  const affected = affectedPods(findings).length;
  for (const step of STEPS) if (affected >= step) facts.add(`affected:${step}`);
  return [...facts].sort();
}

/** A one-line sentence for a fact, used in update messages. */
export function describeFact(fact: string, findings: readonly Finding[]): string {
  const [kind, value = ""] = fact.split(":");
  if (kind === "reason") {
    const example = findings.find((f) => f.reason === value);
    return example ? `new: ${value} — ${example.summary}` : `new: ${value}`;
  }
  if (kind === "paging") return "now paging: the failure has lasted long enough to match a page rule";
  if (kind === "affected") {
    const pods = affectedPods(findings);
    const named = pods.slice(0, MAX_NAMED).join(", ");
    const more = pods.length > MAX_NAMED ? ` and ${pods.length - MAX_NAMED} more` : "";
    return pods.length
      ? `now affects ${pods.length} pod${pods.length === 1 ? "" : "s"}: ${named}${more}`
      : `now affects ${value} or more pods`;
  }
  return fact;
}

const STEPS = [1, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000];
/** Pods named in an update that says how many are affected; the rest are counted. */
const MAX_NAMED = 3;
