import type { Finding } from "../model/finding.ts";
import type { InventoryView, UsageView } from "../model/inventory.ts";
import type { ObjectRef } from "../model/object-ref.ts";
import type { ProbeStatus } from "../model/probe.ts";
import { finding } from "./build.ts";

/**
 * The active probe family (spec 2.3, Pro): each probe reported failing (after `failureThreshold` rounds) is an
 * `ActiveProbeFailure`; an http answer slower than its thresholds is `ActiveProbeSlow` or
 * `ActiveProbeTooSlow`. The finding is on the Service for autoServices, on `Endpoint host:port` for a
 * dependency (explaining the pods that call it, so their failures join it), and on `Probe <name>` for a
 * configured target. Nothing when probes are off. Pure.
 */
export function detectProbes(_inventory: InventoryView, now: number, usage: UsageView = {}): Finding[] {
  return (usage.probes ?? []).map((p) => probeFinding(p, now));
}

// --- internal ---

function probeFinding(p: ProbeStatus, now: number): Finding {
  const t = p.target;
  const object: ObjectRef =
    t.service ?? (t.origin === "dependency" ? { kind: "Endpoint", name: t.address } : { kind: "Probe", name: t.name });
  const what =
    t.origin === "service"
      ? `Service ${t.service?.namespace}/${t.service?.name} (${t.address})`
      : t.origin === "dependency"
        ? `dependency ${t.address}`
        : `${t.kind} probe ${t.name} (${t.address})`;
  const evidence: [string, unknown][] = [
    ["probe", `${t.kind} ${t.address}`],
    ["error", p.last.error],
    ["status", p.last.status],
    ["latency", `${Math.round(p.last.latencyMs)} ms`],
    ["failed rounds", p.failures || undefined],
    [
      "called by",
      t.callers
        ?.slice(0, 5)
        .map((c) => `pod ${c.namespace}/${c.name}`)
        .join(", "),
    ],
  ];
  const explains = t.callers?.length ? { explains: t.callers } : {};
  if (p.slow && p.last.ok) {
    const limit = p.slow === "critical" ? t.latencyCriticalMs : t.latencyWarningMs;
    return finding({
      reason: p.slow === "critical" ? "ActiveProbeTooSlow" : "ActiveProbeSlow",
      object,
      summary: `${what} answered in ${Math.round(p.last.latencyMs)} ms, over its ${limit} ms limit`,
      evidence,
      since: p.since,
      now,
    });
  }
  return finding({
    reason: "ActiveProbeFailure",
    object,
    summary: `${what} is failing: ${p.last.error ?? "no answer"} (${p.failures} rounds in a row)`,
    evidence,
    since: p.since,
    now,
    ...explains,
  });
}
