import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { Incident } from "../model/incident.ts";
import type { KubeObject } from "../model/inventory.ts";
import { inventoryOf } from "../testing/inventory.ts";
import { changeLine } from "../notify/changes.ts";
import { CHANGE_WINDOW_MS, templateDiff, whatChanged } from "./changes.ts";
import { ChangeMemory, MAX_REMEMBERED } from "./remembered.ts";

const T0 = Date.UTC(2026, 10, 1, 12);
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");

function deployment(managers: { manager: string; at: number; subresource?: string }[], created = T0 - 86_400_000) {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      namespace: "shop",
      name: "api",
      uid: "dep-1",
      creationTimestamp: iso(created),
      managedFields: managers.map((m) => ({
        manager: m.manager,
        operation: "Update",
        time: iso(m.at),
        ...(m.subresource ? { subresource: m.subresource } : {}),
      })),
    },
    spec: { template: { spec: { containers: [{ name: "api", image: "api:2" }] } } },
  } as KubeObject;
}

function replicaSet(revision: number, created: number, containers: unknown[]): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: {
      namespace: "shop",
      name: `api-${revision}`,
      uid: `rs-${revision}`,
      creationTimestamp: iso(created),
      annotations: { "deployment.kubernetes.io/revision": String(revision) },
      ownerReferences: [{ apiVersion: "apps/v1", kind: "Deployment", name: "api", uid: "dep-1", controller: true }],
    },
    spec: { template: { spec: { containers } } },
  } as KubeObject;
}

function incident(
  onsetAt: number,
  root: { kind: string; namespace?: string; name: string } = { kind: "Deployment", namespace: "shop", name: "api" },
): Incident {
  return {
    id: `${root.kind}/${root.namespace}/${root.name}`,
    root,
    rootReason: "CrashLoopBackOff",
    tier: "medium",
    mode: "notify",
    findings: [],
    openedAt: onsetAt + 60_000,
    onsetAt,
    phase: "open",
    told: [],
    dedupKey: "k",
    revision: 1,
  };
}

describe("what changed before an incident (issue 32)", () => {
  test("a rollout names its revision, the image change and the manager that wrote the Deployment then", () => {
    const rollout = T0 - 12 * 60_000;
    const inv = inventoryOf(
      deployment([
        { manager: "kube-controller-manager", at: T0, subresource: "status" },
        { manager: "helm", at: rollout - 2_000 },
      ]),
      replicaSet(4, T0 - 3_600_000, [{ name: "api", image: "api:1" }]),
      replicaSet(5, rollout, [{ name: "api", image: "api:2" }]),
    );
    expect(whatChanged(incident(T0), inv)?.change).toEqual({
      object: { kind: "Deployment", namespace: "shop", name: "api" },
      kind: "rollout",
      manager: "helm",
      at: rollout,
      what: ["revision 4 → 5", "image api: api:1 → api:2"],
    });
  });

  test("a change after the incident opened is not its cause; nothing in 24 h is an answer too", () => {
    const inv = inventoryOf(
      deployment([{ manager: "kubectl-edit", at: T0 + 120_000 }], T0 - 2 * CHANGE_WINDOW_MS),
      replicaSet(1, T0 - 2 * CHANGE_WINDOW_MS, [{ name: "api", image: "api:1" }]),
    );
    const report = whatChanged(incident(T0), inv);
    expect(report).toEqual({ onsetAt: T0, windowMs: CHANGE_WINDOW_MS });
  });

  test("with nothing before the onset, a change before the incident opened is told as after it began", () => {
    const inv = inventoryOf(
      deployment([{ manager: "kubectl-edit", at: T0 + 30_000 }], T0 - 2 * CHANGE_WINDOW_MS),
      replicaSet(1, T0 - 2 * CHANGE_WINDOW_MS, [{ name: "api", image: "api:1" }]),
    );
    const report = whatChanged(incident(T0), inv)!;
    expect(report.change).toMatchObject({ kind: "spec", manager: "kubectl-edit", at: T0 + 30_000 });
    expect(changeLine(report, (t) => t)).toBe(
      "Changed: 30 s after it began, kubectl-edit changed deployment shop/api.",
    );
  });

  test("a deleted Secret the pods read is named, from the deletions remembered", () => {
    const log = new ChangeMemory();
    const secret = { apiVersion: "v1", kind: "Secret", metadata: { namespace: "shop", name: "db" } } as KubeObject;
    log.note({ kind: "Secret", previous: secret }, T0 - 180_000);
    const report = whatChanged(incident(T0, { kind: "Secret", namespace: "shop", name: "db" }), inventoryOf([]), log);
    expect(report?.change).toMatchObject({ kind: "deleted", at: T0 - 180_000 });
    // Created again, it is forgotten.
    log.note({ kind: "Secret", next: secret }, T0);
    expect(log.deletedAt("Secret", "shop", "db")).toBeUndefined();
  });

  test("a node that restarted is named for its own incident and its pods'; a node that did not says nothing", () => {
    const log = new ChangeMemory();
    const node = (bootID: string) =>
      ({ apiVersion: "v1", kind: "Node", metadata: { name: "n1" }, status: { nodeInfo: { bootID } } }) as KubeObject;
    log.note({ kind: "Node", previous: node("a"), next: node("a") }, T0 - 600_000);
    expect(whatChanged(incident(T0, { kind: "Node", name: "n1" }), inventoryOf(node("a")), log)).toBeUndefined();
    log.note({ kind: "Node", previous: node("a"), next: node("b") }, T0 - 300_000);
    const report = whatChanged(incident(T0, { kind: "Node", name: "n1" }), inventoryOf(node("b")), log)!;
    expect(changeLine(report, (t) => t)).toBe("Changed: node n1 restarted 5 min before it began.");
  });

  test("the deletion memory stays bounded", () => {
    const log = new ChangeMemory();
    for (let i = 0; i < MAX_REMEMBERED * 3; i++)
      log.note({ kind: "ConfigMap", previous: { metadata: { namespace: "a", name: `c${i}` } } as KubeObject }, T0 + i);
    expect(log.size).toBe(MAX_REMEMBERED);
    expect(log.deletedAt("ConfigMap", "a", `c${MAX_REMEMBERED * 3 - 1}`)).toBe(T0 + MAX_REMEMBERED * 3 - 1);
  });

  test("a template's difference never shows an env value (a credential), only that it changed", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 6, maxLength: 40 }).filter((v) => v.trim().length >= 6),
        fc.string({ minLength: 6, maxLength: 40 }).filter((v) => v.trim().length >= 6),
        (before, after) => {
          fc.pre(before !== after);
          const t = (value: string) => ({
            spec: { containers: [{ name: "api", image: "api:1", env: [{ name: "DB_PASSWORD", value }] }] },
          });
          const lines = templateDiff(t(before), t(after));
          expect(lines).toEqual(["env DB_PASSWORD of api changed"]);
          for (const line of lines) {
            expect(line).not.toContain(before.trim());
            expect(line).not.toContain(after.trim());
          }
        },
      ),
    );
  });

  test("references, resources, volumes and a restart are named; the list is bounded", () => {
    const before = {
      spec: {
        containers: [
          {
            name: "api",
            image: "api:1",
            env: [{ name: "A", valueFrom: { secretKeyRef: { name: "s1", key: "k" } } }],
            resources: { limits: { memory: "256Mi" } },
          },
        ],
        volumes: [{ name: "cfg", configMap: { name: "api-v1" } }],
      },
    };
    const after = {
      metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": "2026-11-01T12:00:00Z" } },
      spec: {
        containers: [
          {
            name: "api",
            image: "api:1",
            env: [{ name: "A", valueFrom: { secretKeyRef: { name: "s2", key: "k" } } }],
            resources: { limits: { memory: "512Mi" } },
          },
        ],
        volumes: [{ name: "cfg", configMap: { name: "api-v2" } }],
      },
    };
    expect(templateDiff(before, after)).toEqual([
      "env A of api: secret s1/k → secret s2/k",
      "api memory limit: 256Mi → 512Mi",
      "volume cfg: configMap api-v1 → configMap api-v2",
      "restarted (kubectl rollout restart)",
    ]);
  });
});

describe("changes nobody made are not what changed (issue 50)", () => {
  /** A ConfigMap written by `writers` (manager, epoch ms, operation), created at the first of them. */
  function configMap(name: string, writers: readonly { manager: string; at: number }[]): KubeObject {
    const created = Math.min(...writers.map((w) => w.at));
    return {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        namespace: "shop",
        name,
        uid: `cm-${name}`,
        creationTimestamp: iso(created),
        managedFields: writers.map((w) => ({ manager: w.manager, operation: "Update", time: iso(w.at) })),
      },
      data: {},
    } as KubeObject;
  }

  /** A pod as the API server admits it: its service-account token volume projects the root CA ConfigMap. */
  function podReading(configMaps: readonly string[]): KubeObject {
    return {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { namespace: "shop", name: "api-x", uid: "pod-1", creationTimestamp: iso(T0 - 86_400_000) },
      spec: {
        containers: [
          {
            name: "api",
            image: "api:1",
            volumeMounts: configMaps.map((_, i) => ({ name: `v${i}`, mountPath: `/var/run/v${i}` })),
          },
        ],
        volumes: configMaps.map((name, i) => ({
          name: `v${i}`,
          projected: { sources: [{ serviceAccountToken: { path: "token" } }, { configMap: { name } }] },
        })),
      },
    } as KubeObject;
  }

  test("the root CA ConfigMap the controller-manager publishes into a new namespace is no one's change", () => {
    const inv = inventoryOf(
      podReading(["kube-root-ca.crt"]),
      configMap("kube-root-ca.crt", [{ manager: "kube-controller-manager", at: T0 - 56_000 }]),
    );
    const report = whatChanged(incident(T0, { kind: "Pod", namespace: "shop", name: "api-x" }), inv)!;
    expect(report.change).toBeUndefined();
    expect(changeLine(report, (t) => t)).toBe("Changed: nothing in the 24 h before it began.");
  });

  test("a person's edit of an object the control plane created is a change, named after the person", () => {
    const inv = inventoryOf(
      podReading(["kube-root-ca.crt"]),
      configMap("kube-root-ca.crt", [
        { manager: "kube-controller-manager", at: T0 - 3_600_000 },
        { manager: "kubectl-edit", at: T0 - 120_000 },
        { manager: "kube-controller-manager", at: T0 - 30_000 },
      ]),
    );
    const report = whatChanged(incident(T0, { kind: "Pod", namespace: "shop", name: "api-x" }), inv)!;
    expect(report.change).toMatchObject({ kind: "spec", manager: "kubectl-edit", at: T0 - 120_000 });
  });

  test("whoever wrote what, the change named is a person's or a tool's, never a control-plane component's", () => {
    // The oracle: the control plane's components by name, written out here rather than asked of the code.
    const components = new Set([
      "kube-controller-manager",
      "kube-scheduler",
      "kubelet",
      "kube-apiserver",
      "cloud-controller-manager",
    ]);
    const isComponent = (manager: string | undefined) => manager !== undefined && components.has(manager);
    const managers = fc.constantFrom(
      ...components,
      "kubectl-create",
      "kubectl-edit",
      "helm",
      "argocd-controller",
      "kustomize-controller",
    );
    const writers = fc.array(
      fc.record({ manager: managers, at: fc.integer({ min: T0 - 3 * CHANGE_WINDOW_MS, max: T0 + 60_000 }) }),
      { minLength: 1, maxLength: 5 },
    );
    let named = 0;
    let nobody = 0;
    fc.assert(
      fc.property(fc.array(writers, { minLength: 1, maxLength: 3 }), (objects) => {
        const names = objects.map((_, i) => `cm-${i}`);
        const inv = inventoryOf(podReading(names), ...objects.map((w, i) => configMap(names[i]!, w)));
        const change = whatChanged(incident(T0, { kind: "Pod", namespace: "shop", name: "api-x" }), inv)?.change;
        // Someone who is not the control plane wrote something in the window: some change is named.
        const someone = objects.some((w) =>
          w.some((x) => !isComponent(x.manager) && x.at >= T0 - CHANGE_WINDOW_MS && x.at <= T0 + 1_000),
        );
        if (change) {
          named++;
          expect(isComponent(change.manager)).toBe(false);
        } else nobody++;
        // Only the control plane ever wrote them: nothing is named, whatever the times.
        if (objects.every((w) => w.every((x) => isComponent(x.manager)))) expect(change).toBeUndefined();
        // A person's write in the window before the onset is never lost behind a component's later one.
        if (someone) expect(change).toBeDefined();
      }),
      { numRuns: 300 },
    );
    expect(named).toBeGreaterThan(20);
    expect(nobody).toBeGreaterThan(20);
  });
});
