import { describe, expect, test } from "bun:test";
import type { Finding } from "../model/finding.ts";
import { inventoryOf, node, pod, workload } from "../testing/inventory.ts";
import { groupFindings } from "./group.ts";
import { SYMPTOM_WAIT_MAX_MS, waitForCauses } from "./wait-for-cause.ts";

const NOW = Date.parse("2026-01-01T01:00:00Z");
const api = workload("shop", "api");
const inventory = inventoryOf(api.deployment, api.replicaSet, pod("shop", "api-1", { owner: api.replicaSet }));
const podRef = { kind: "Pod", namespace: "shop", name: "api-1" };

function f(reason: string, object: Finding["object"], extra: Partial<Finding> = {}): Finding {
  return {
    key: `${reason}/${object.kind}/${object.namespace ?? ""}/${object.name}`,
    reason,
    object,
    tier: "high",
    summary: reason,
    evidence: [],
    since: NOW - 10_000,
    ...extra,
  } as Finding;
}

const service = f("ServiceNoReadyEndpoints", { kind: "Service", namespace: "shop", name: "api" }, { joins: [podRef] });
const unavailable = f("WorkloadUnavailable", { kind: "Deployment", namespace: "shop", name: "api" });

describe("a symptom waits for its cause (bounded)", () => {
  test("a Service and a workload whose pod's finding is within its hold wait until it is decided", () => {
    const held = f("CrashLoopBackOff", podRef, { opensAt: NOW + 30_000 });
    const { findings, waiting } = waitForCauses([held, service, unavailable], inventory, NOW);
    expect(waiting).toBe(2);
    expect(findings.map((x) => x.opensAt)).toEqual([NOW + 30_000, NOW + 30_000, NOW + 30_000]);
  });

  test("a failure older than the cause that holds it waits from the cause's start: it never opens a node's held loss at once (issue 53)", () => {
    // A crash loop told 10 minutes ago sits on a pod whose node has just gone Unknown with the rest of the cluster:
    // the node's finding is within its heartbeat-gap hold and explains the pod.
    const crash = f("CrashLoopBackOff", podRef, { since: NOW - 10 * 60_000 });
    const lost = f(
      "NodeLost",
      { kind: "Node", name: "n1" },
      { since: NOW - 13_000, opensAt: NOW + 47_000, explains: [podRef] },
    );
    const held = waitForCauses([crash, lost], inventory, NOW).findings;
    expect(held[1]!.opensAt).toBe(NOW + 47_000);
    // Were the node still held 2 minutes after it went down, the wait ends: both open.
    const later = NOW - 13_000 + SYMPTOM_WAIT_MAX_MS;
    const longHold = { ...lost, opensAt: NOW + 10 * 60_000 };
    expect(waitForCauses([crash, longHold], inventory, later).findings.map((x) => x.opensAt)).toEqual([
      undefined,
      undefined,
    ]);
  });

  test("the wait never lasts more than 2 minutes from the symptom's start; then the pod's finding opens with it", () => {
    const heldLong = f("ReadinessProbeFailing", podRef, { opensAt: NOW + 5 * 60_000 });
    const waiting = waitForCauses([heldLong, service], inventory, NOW);
    expect(waiting.findings[1]!.opensAt).toBe(service.since + SYMPTOM_WAIT_MAX_MS);
    const later = NOW + SYMPTOM_WAIT_MAX_MS;
    const out = waitForCauses([heldLong, service], inventory, later).findings;
    expect(out.map((x) => x.opensAt)).toEqual([undefined, undefined]);
  });

  test("a symptom that began while its pods' node was down waits for its new pods from the node's return, at most 2 minutes (issue 50)", () => {
    // Unavailable since its pods were evicted from a lost node 5 minutes ago; the node is back now, its new pod
    // is starting and its readiness finding is within its hold.
    const iso = (ms: number) => new Date(ms).toISOString();
    const back = NOW - 2_000;
    const nodes = (readyAt: number) =>
      inventoryOf(
        api.deployment,
        api.replicaSet,
        pod("shop", "api-1", { owner: api.replicaSet, nodeName: "n1" }),
        node("n1", "True", iso(readyAt)),
      );
    const since = NOW - 5 * 60_000;
    const symptom = { ...unavailable, since };
    const starting = f("ReadinessProbeFailing", podRef, { nodeName: "n1", since: back, opensAt: back + 5 * 60_000 });
    const waited = waitForCauses([starting, symptom], nodes(back), NOW).findings;
    expect(waited.map((x) => x.opensAt)).toEqual([back + 5 * 60_000, back + SYMPTOM_WAIT_MAX_MS]);
    // 2 minutes after the node's return the wait is over: the pod's finding opens with the symptom.
    const later = back + SYMPTOM_WAIT_MAX_MS;
    expect(waitForCauses([starting, symptom], nodes(back), later).findings.map((x) => x.opensAt)).toEqual([
      undefined,
      undefined,
    ]);
    // A node Ready all along: the wait counts from the symptom's own start, as before.
    expect(waitForCauses([starting, symptom], nodes(NOW - 86_400_000), NOW).findings.map((x) => x.opensAt)).toEqual([
      undefined,
      undefined,
    ]);
  });

  test("no held cause, or a cause that is already open and explains the pods: nothing waits", () => {
    expect(waitForCauses([service], inventory, NOW).waiting).toBe(0);
    const missing = f(
      "ConfigMapMissing",
      { kind: "ConfigMap", namespace: "shop", name: "api-config" },
      { explains: [podRef] },
    );
    const held = f("CreateContainerConfigError", podRef, { opensAt: NOW + 50_000 });
    const { findings, waiting } = waitForCauses([missing, held, service], inventory, NOW);
    expect(waiting).toBe(0);
    // The Service joins the open cause at once, through the pod it explains.
    const drafts = groupFindings(
      findings.filter((x) => (x.opensAt ?? 0) <= NOW),
      inventory,
    );
    expect(drafts.map((d) => [d.root.kind, d.findings.map((x) => x.reason)])).toEqual([
      ["ConfigMap", ["ConfigMapMissing", "ServiceNoReadyEndpoints"]],
    ]);
  });
});

describe("an incident is named by its most explanatory finding", () => {
  test("a pod's failing probe over the Deployment's unavailability over the Service's missing endpoints", () => {
    const probe = f("ReadinessProbeFailing", podRef, { tier: "warning" });
    const [draft] = groupFindings([unavailable, service, probe], inventory);
    expect(draft).toMatchObject({ root: { kind: "Deployment", name: "api" }, rootReason: "ReadinessProbeFailing" });
    expect(draft!.findings).toHaveLength(3);
  });
});
