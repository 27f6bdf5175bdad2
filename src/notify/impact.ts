import type { Impact } from "../model/impact.ts";

/** Host names listed per entry point; the rest are counted. */
const MAX_HOSTS = 3;

/**
 * The "Impact:" line of an announcement or update (issue 32): how users reach what fails and how many
 * backends are left there, or that no user entry point leads to it (which is also why it does not page as a
 * user-facing outage); the workloads' available replicas; who depends on it.
 */
export function impactLine(impact: Impact): string {
  const parts: string[] = [];
  for (const e of impact.entryPoints) {
    const hosts = e.hosts.length
      ? ` (${e.hosts.slice(0, MAX_HOSTS).join(", ")}${e.hosts.length > MAX_HOSTS ? ` and ${e.hosts.length - MAX_HOSTS} more` : ""})`
      : "";
    const left = e.ready === 0 ? "users lose it" : `${e.ready} of ${e.total} backends ready`;
    parts.push(`service ${e.service} through ${e.via}${hosts}: ${left}`);
  }
  for (const s of impact.internal)
    parts.push(`service ${s.service} (internal): ${s.ready} of ${s.total} backends ready`);
  if (impact.entryPoints.length === 0)
    parts.push("no Ingress, Gateway route, LoadBalancer or NodePort leads users to it");
  for (const w of impact.workloads) parts.push(`${w.workload} ${w.available}/${w.desired} available`);
  if (impact.dependents.length)
    parts.push(
      `${impact.dependents.join(", ")}${impact.moreDependents ? ` and ${impact.moreDependents} more` : ""} depend${impact.dependents.length + impact.moreDependents === 1 ? "s" : ""} on it`,
    );
  return `Impact: ${parts.join("; ")}.`;
}
