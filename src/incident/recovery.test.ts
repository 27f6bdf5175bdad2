import { describe, expect, test } from "bun:test";
import type { Finding } from "../model/finding.ts";
import type { KubeObject } from "../model/inventory.ts";
import type { ObjectRef } from "../model/object-ref.ts";
import { inventoryOf, node, pod, workload } from "../testing/inventory.ts";
import { absorbRecoveryTraffic, recoveryOf } from "./recovery.ts";

const deployment = (name: string, available: number) => ({
  kind: "Deployment",
  metadata: { namespace: "shop", name },
  spec: { replicas: 2 },
  status: { availableReplicas: available },
});
const svc = { kind: "Service", metadata: { namespace: "shop", name: "web" }, spec: { selector: { app: "web" } } };
const slice = (ready: boolean) => ({
  kind: "EndpointSlice",
  metadata: { namespace: "shop", name: "web-x", labels: { "kubernetes.io/service-name": "web" } },
  endpoints: [{ addresses: ["10.0.0.1"], conditions: { ready } }],
});
const on = (object: ObjectRef, reason = "X"): Finding => ({
  key: `${reason}/${object.kind}/${object.namespace ?? ""}/${object.name}`,
  reason,
  object,
  tier: "medium",
  summary: "",
  evidence: [],
  since: 0,
});
const podRef = (name: string): ObjectRef => ({ kind: "Pod", namespace: "shop", name });
const rs = workload("shop", "api").replicaSet;
const notReady = (name: string): KubeObject =>
  pod("shop", name, { nodeName: "n1", owner: rs, conditions: [{ type: "Ready", status: "False" }] });

describe("recovery: what a resolve waits for and says", () => {
  test("a workload is back when every wanted replica is available; the Now line says how many", () => {
    const root = { kind: "Deployment", namespace: "shop", name: "api" };
    expect(recoveryOf({ root, findings: [] }, inventoryOf(deployment("api", 0)))).toEqual({
      recovered: false,
      now: "0/2 replicas available",
      missing: ["deployment shop/api 0/2 replicas available"],
    });
    expect(recoveryOf({ root, findings: [] }, inventoryOf(deployment("api", 2)))).toEqual({
      recovered: true,
      now: "2/2 replicas available",
      missing: [],
    });
  });

  test("a node is back when it is Ready and the pods it took down run again or were replaced", () => {
    const root = { kind: "Node", name: "n1" };
    const findings = [on(root, "NodeLost"), on(podRef("api-1"), "PodNodeLost"), on(podRef("api-2"), "PodNodeLost")];
    const starting = inventoryOf(node("n1", "True"), notReady("api-1"));
    expect(recoveryOf({ root, findings }, starting)).toMatchObject({
      recovered: false,
      missing: ["pod shop/api-1 not ready"],
    });
    const back = inventoryOf(node("n1", "True"), pod("shop", "api-1", { nodeName: "n1", owner: rs }));
    expect(recoveryOf({ root, findings }, back)).toEqual({
      recovered: true,
      now: "node Ready again; 1 pod running",
      missing: [],
    });
    expect(recoveryOf({ root, findings }, inventoryOf(node("n1", "Unknown"))).recovered).toBe(false);
  });

  test("a pod failing now in another incident (a crash loop of its own) is not missing from this one", () => {
    const root = { kind: "Node", name: "n1" };
    const findings = [on(root, "NodeLost"), on(podRef("api-1"), "PodNodeLost")];
    const inventory = inventoryOf(node("n1", "True"), notReady("api-1"));
    expect(recoveryOf({ root, findings }, inventory, (o) => o.name === "api-1").recovered).toBe(true);
  });

  test("a Service is back with a ready endpoint; one still without is not, and says nothing as its Now", () => {
    const root = { kind: "Service", namespace: "shop", name: "web" };
    expect(recoveryOf({ root, findings: [] }, inventoryOf(svc, slice(false)))).toEqual({
      recovered: false,
      missing: ["service shop/web has no ready endpoint"],
    });
    expect(recoveryOf({ root, findings: [] }, inventoryOf(svc, slice(true))).now).toBe("1 ready endpoint");
  });

  test("a missing ConfigMap is back when it exists and the pods it stopped are ready", () => {
    const root = { kind: "ConfigMap", namespace: "shop", name: "cfg" };
    const cm = { kind: "ConfigMap", metadata: { namespace: "shop", name: "cfg" } };
    const findings = [on(root, "ConfigMapMissing"), on(podRef("api-1"), "CreateContainerConfigError")];
    expect(recoveryOf({ root, findings }, inventoryOf(cm, notReady("api-1"))).recovered).toBe(false);
    expect(recoveryOf({ root, findings }, inventoryOf(cm, pod("shop", "api-1", { owner: rs })))).toMatchObject({
      recovered: true,
      now: "ConfigMap cfg exists now",
    });
  });

  test("a shared root outside the cluster (an endpoint) reports the workloads that failed on it", () => {
    const root = { kind: "Endpoint", name: "orders-db.shop:5432" };
    const affected = [{ kind: "Deployment", namespace: "shop", name: "checkout" }];
    expect(recoveryOf({ root, findings: [], affected }, inventoryOf(deployment("checkout", 2))).now).toBe(
      "deployment shop/checkout 2/2 replicas available",
    );
    expect(recoveryOf({ root, findings: [] }, inventoryOf(deployment("checkout", 2)))).toEqual({
      recovered: true,
      missing: [],
    });
  });

  test("a Job's pods are its history: a failed attempt is not waited for", () => {
    const job = { kind: "Job", metadata: { namespace: "shop", name: "migrate", uid: "uid-j" } };
    const attempt = pod("shop", "migrate-x", {
      phase: "Failed",
      owner: job,
      conditions: [{ type: "Ready", status: "False" }],
    });
    const root = { kind: "Job", namespace: "shop", name: "migrate" };
    expect(recoveryOf({ root, findings: [on(podRef("migrate-x"))] }, inventoryOf(job, attempt)).recovered).toBe(true);
  });
});

describe("recovery traffic: what a recovering incident absorbs", () => {
  const node = { kind: "Node", name: "n1" };
  const apiPod = podRef("api-1");
  const deploymentRef = { kind: "Deployment", namespace: "shop", name: "api" };
  const rsOwned = pod("shop", "api-1", { nodeName: "n1", owner: rs });
  const api = workload("shop", "api");
  const inventory = inventoryOf(api.deployment, api.replicaSet, rsOwned);
  const recovering = {
    id: "Node//n1",
    announced: true,
    findings: [on(node, "NodeLost"), on(apiPod, "PodNodeLost")],
  };
  const draftOf = (...findings: Finding[]) => ({ root: deploymentRef, rootReason: findings[0]!.reason, findings });
  const absorb = (...findings: Finding[]) => absorbRecoveryTraffic([draftOf(...findings)], [recovering], inventory);

  test("the workload of a pod it named, without replicas for a moment: absorbed, not a new incident", () => {
    const out = absorb({ ...on(deploymentRef, "WorkloadUnavailable"), symptom: true });
    expect(out.drafts).toEqual([]);
    expect(out.absorbed.get("Node//n1")).toEqual([deploymentRef]);
  });

  test("a finding it told, seen once more while the cluster catches up: absorbed", () => {
    expect(absorb(on(apiPod, "PodNodeLost")).drafts).toEqual([]);
  });

  test("a new cause on a pod it named (a crash loop of its own) is a new problem", () => {
    expect(absorb(on(apiPod, "CrashLoopBackOff")).drafts).toHaveLength(1);
  });

  test("an incident still failing (it has a draft this pass) absorbs nothing", () => {
    const out = absorbRecoveryTraffic(
      [
        draftOf({ ...on(deploymentRef, "WorkloadUnavailable"), symptom: true }),
        { root: node, rootReason: "NodeLost", findings: [on(node, "NodeLost")] },
      ],
      [recovering],
      inventory,
    );
    expect(out.drafts).toHaveLength(2);
  });
});
