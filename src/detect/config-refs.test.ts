import { describe, expect, test } from "bun:test";
import { groupFindings } from "../correlate/group.ts";
import type { KubeObject } from "../model/inventory.ts";
import { configReferences } from "../model/config-refs.ts";
import { inventoryOf, inventoryWatching, pod, workload } from "../testing/inventory.ts";
import { detectConfigRefs } from "./config-refs.ts";
import { detectPods } from "./pods/family.ts";

const NOW = Date.parse("2026-01-01T01:00:00Z");
const api = workload("shop", "api");
const web = workload("shop", "web");
const configError = (message: string) => ({ state: { waiting: { reason: "CreateContainerConfigError", message } } });
const withEnvFrom = (p: KubeObject, secret: string) => ({
  ...p,
  spec: { ...p.spec, containers: [{ name: "app", image: "x:1", envFrom: [{ secretRef: { name: secret } }] }] },
});
const secret = (name: string, data: Record<string, string> = {}): KubeObject => ({
  kind: "Secret",
  apiVersion: "v1",
  metadata: { namespace: "shop", name },
  data,
});

describe("config references (failure-catalogue G1–G3, rule R4)", () => {
  test("a missing Secret is one root explaining every failing pod that references it, across workloads", () => {
    const objects = [
      api.deployment,
      api.replicaSet,
      web.deployment,
      web.replicaSet,
      withEnvFrom(
        pod("shop", "api-1", {
          owner: api.replicaSet,
          phase: "Pending",
          status: configError('secret "api-keys" not found'),
        }),
        "api-keys",
      ),
      withEnvFrom(
        pod("shop", "web-1", {
          owner: web.replicaSet,
          phase: "Pending",
          status: configError('secret "api-keys" not found'),
        }),
        "api-keys",
      ),
    ];
    const inventory = inventoryOf(...objects);
    const refs = detectConfigRefs(inventory, NOW);
    expect(refs.map((f) => [f.reason, f.object.name, f.explains?.map((o) => o.name)])).toEqual([
      ["SecretMissing", "api-keys", ["api-1", "web-1"]],
    ]);
    const drafts = groupFindings([...refs, ...detectPods(inventory, NOW + 5 * 60_000)], inventory);
    expect(drafts.map((d) => [d.root.kind, d.root.name, d.rootReason, d.findings.length])).toEqual([
      ["Secret", "api-keys", "SecretMissing", 3],
    ]);
  });

  test("a missing ConfigMap mounted as a volume is the root of the pod it breaks", () => {
    const p = {
      ...pod("shop", "m1", {
        owner: api.replicaSet,
        phase: "Pending",
        status: configError('configmap "settings" not found'),
      }),
      spec: {
        containers: [{ name: "app", image: "x:1", volumeMounts: [{ name: "cfg", mountPath: "/etc/app" }] }],
        volumes: [{ name: "cfg", configMap: { name: "settings" } }],
      },
    };
    const refs = detectConfigRefs(inventoryOf(api.deployment, api.replicaSet, p), NOW);
    expect(refs.map((f) => [f.reason, f.object.kind, f.object.name, f.explains?.map((o) => o.name)])).toEqual([
      ["ConfigMapMissing", "ConfigMap", "settings", ["m1"]],
    ]);
  });

  test("a volume no container mounts blocks nothing, as on a real kubelet, whatever it names (issue 50)", () => {
    // A real kubelet's volume manager sets up only the volumes a container mounts: this pod runs.
    const p = {
      ...pod("shop", "u1", { owner: api.replicaSet }),
      spec: {
        containers: [{ name: "app", image: "x:1" }],
        volumes: [{ name: "cfg", configMap: { name: "settings" } }],
      },
    };
    expect(detectConfigRefs(inventoryOf(api.deployment, api.replicaSet, p), NOW)).toEqual([]);
    // Mounted by an init container only, it is read.
    const init = {
      ...p,
      spec: {
        ...p.spec,
        initContainers: [{ name: "setup", image: "x:1", volumeMounts: [{ name: "cfg", mountPath: "/c" }] }],
      },
    };
    expect(configReferences(init.spec).map((r) => r.name)).toEqual(["settings"]);
    expect(configReferences(p.spec)).toEqual([]);
  });

  test("a missing key of an existing ConfigMap, from env valueFrom", () => {
    const p = {
      ...pod("shop", "k1", {
        phase: "Pending",
        status: configError("couldn't find key LEVEL in ConfigMap shop/settings"),
      }),
      spec: {
        containers: [
          { name: "app", env: [{ name: "LEVEL", valueFrom: { configMapKeyRef: { name: "settings", key: "LEVEL" } } }] },
        ],
      },
    };
    const cm = {
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: { namespace: "shop", name: "settings" },
      data: { OTHER: "x" },
    };
    expect(detectConfigRefs(inventoryOf(cm, p), NOW).map((f) => f.summary)).toEqual([
      "configmap shop/settings has no key LEVEL, which 1 pod need",
    ]);
  });

  test("optional references, existing objects and pods that run are never findings (spec 1.6)", () => {
    const optional = {
      ...pod("shop", "o1", { phase: "Pending", status: configError("x") }),
      spec: { containers: [{ name: "app", envFrom: [{ secretRef: { name: "maybe", optional: true } }] }] },
    };
    const present = withEnvFrom(pod("shop", "p1", { phase: "Pending", status: configError("x") }), "db");
    const running = withEnvFrom(pod("shop", "r1", { status: { ready: true, state: { running: {} } } }), "gone");
    expect(detectConfigRefs(inventoryOf(optional, present, secret("db"), running), NOW)).toEqual([]);
  });

  test("with Secrets not watched nothing is claimed about them, and the pod's finding says it cannot verify", () => {
    const p = withEnvFrom(
      pod("shop", "api-1", { phase: "Pending", status: configError('secret "api-keys" not found') }),
      "api-keys",
    );
    const inventory = inventoryWatching(["Pod", "ConfigMap"], p);
    expect(detectConfigRefs(inventory, NOW)).toEqual([]);
    const [podFinding] = detectPods(inventory, NOW + 5 * 60_000);
    expect(Object.fromEntries(podFinding!.evidence.map((e) => [e.label, e.value]))["secret check"]).toBe(
      "cannot verify: Secrets are not watched (watch.secrets is false)",
    );
  });

  test("a ServiceAccount named in a create failure that does not exist", () => {
    const rs = {
      ...api.replicaSet,
      status: {
        conditions: [
          {
            type: "ReplicaFailure",
            status: "True",
            reason: "FailedCreate",
            message:
              'pods "api-7c9d8f6b5-" is forbidden: error looking up service account shop/api-sa: serviceaccount "api-sa" not found',
          },
        ],
      },
    };
    const found = detectConfigRefs(inventoryOf(rs), NOW);
    expect(found.map((f) => [f.reason, f.object.name, f.tier])).toEqual([["ServiceAccountMissing", "api-sa", "high"]]);
  });
});

describe("a reference missing only from mon's view (issue 50, found by the timing property)", () => {
  test("a pod still being created waits a moment for what its watch may bring late; the kubelet's word opens at once", () => {
    const created = NOW - 300;
    const creating: KubeObject = {
      ...withEnvFrom(
        pod("shop", "api-1", {
          owner: api.replicaSet,
          phase: "Pending",
          status: { state: { waiting: { reason: "ContainerCreating" } } },
        }),
        "api-keys",
      ),
    };
    creating.metadata = { ...creating.metadata, creationTimestamp: new Date(created).toISOString() };
    const [unconfirmed] = detectConfigRefs(inventoryOf(api.deployment, api.replicaSet, creating), NOW);
    expect(unconfirmed?.reason).toBe("SecretMissing");
    expect(unconfirmed?.opensAt).toBe(created + 5_000);
    const told = {
      ...creating,
      status: {
        ...creating.status,
        containerStatuses: [{ name: "app", ...configError('secret "api-keys" not found') }],
      },
    };
    const [confirmed] = detectConfigRefs(inventoryOf(api.deployment, api.replicaSet, told), NOW);
    expect(confirmed?.reason).toBe("SecretMissing");
    expect(confirmed?.opensAt).toBeUndefined();
  });
});
