import type { Finding } from "../model/finding.ts";
import type { InventoryView } from "../model/inventory.ts";
import type { NetworkPolicy, Pod } from "../model/kube.ts";
import { selects, selectsAll } from "../model/label-selector.ts";
import { finding, refOf } from "./build.ts";
import { parseTime } from "./evidence.ts";

/** How recent a policy change must be to be named as the cause of failures (failure-catalogue E11). */
const RECENT_MS = 15 * 60_000;

/**
 * A namespace default-deny ingress NetworkPolicy that admits no traffic to a Service's pods (spec 1.2 network;
 * failure-catalogue E11): the policy selects every pod (`podSelector: {}`), restricts Ingress, allows nothing,
 * and no other policy in the namespace admits ingress to the Service's pods. Reported only while those pods
 * are failing readiness (what is happening, spec 1.6), and named as the likely cause when it changed in the
 * last 15 minutes. Pure.
 */
export function detectNetworkPolicies(inventory: InventoryView, now: number): Finding[] {
  if (!inventory.watches("NetworkPolicy")) return [];
  const out: Finding[] = [];
  const byNamespace = new Map<string, NetworkPolicy[]>();
  for (const p of inventory.list("NetworkPolicy")) {
    const ns = p.metadata.namespace ?? "";
    byNamespace.set(ns, [...(byNamespace.get(ns) ?? []), p]);
  }
  for (const [namespace, policies] of byNamespace) {
    const denyAll = policies.find((p) => isDefaultDenyIngress(p));
    if (!denyAll) continue;
    for (const svc of inventory.listIn("Service", namespace).filter((s) => s.spec?.selector)) {
      const pods = inventory
        .listIn("Pod", namespace)
        .filter((p) => Object.entries(svc.spec?.selector ?? {}).every(([k, v]) => p.metadata?.labels?.[k] === v));
      if (pods.length === 0) continue;
      const admitted = pods.some((pod) => policies.some((p) => p !== denyAll && admitsIngress(p, pod)));
      if (admitted) continue;
      const notReady = pods.filter((p) =>
        (p.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "False"),
      );
      if (notReady.length === 0) continue;
      const changed = Math.max(
        parseTime(denyAll.metadata?.creationTimestamp, 0),
        ...(denyAll.metadata?.managedFields ?? []).map((m) => parseTime(m.time, 0)),
      );
      const recent = now - changed <= RECENT_MS;
      out.push(
        finding({
          reason: "NetworkPolicyBlocksTraffic",
          object: refOf({ ...denyAll, kind: "NetworkPolicy" }),
          part: svc.metadata.name,
          summary: `networkpolicy ${namespace}/${denyAll.metadata.name} denies all ingress and no policy admits traffic to service ${svc.metadata.name}; ${notReady.length} of its pods are not ready${recent ? " (the policy changed in the last 15 minutes)" : ""}`,
          evidence: [
            ["policy", denyAll.metadata.name],
            ["service", svc.metadata.name],
            [
              "pods not ready",
              notReady
                .map((p) => p.metadata.name)
                .slice(0, 5)
                .join(", "),
            ],
            ["policy changed", new Date(changed).toISOString()],
          ],
          since: changed,
          now,
          explains: recent ? notReady.map((p) => refOf({ ...p, kind: "Pod" })) : undefined,
        }),
      );
    }
  }
  return out;
}

// --- internal ---

function isDefaultDenyIngress(p: NetworkPolicy): boolean {
  const types = p.spec?.policyTypes ?? ["Ingress"];
  return selectsAll(p.spec?.podSelector) && types.includes("Ingress") && (p.spec?.ingress ?? []).length === 0;
}

/** Whether policy `p` selects `pod` and allows some ingress to it (any rule; peers are not evaluated). */
function admitsIngress(p: NetworkPolicy, pod: Pod): boolean {
  return selects(p.spec?.podSelector ?? {}, pod.metadata?.labels ?? {}) && (p.spec?.ingress ?? []).length > 0;
}
