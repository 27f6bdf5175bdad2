import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createFakeClock } from "../../runtime/clock.ts";
import { readyNode } from "../scenarios/builders.ts";
import { startSimulator, type Simulator } from "../simulator.ts";
import type { KubeObject } from "../store.ts";

/**
 * What the controllers write has the shape kube-controller-manager, the scheduler and the kubelet write on a
 * real v1.32 cluster (src/sim/testdata/kube-apiserver-v1.32/controllers): the same status fields, labels,
 * annotations and condition types, so mon's detectors read the same thing from both.
 */
const FIXTURES = join(import.meta.dirname, "..", "testdata", "kube-apiserver-v1.32", "controllers");
const recorded = (file: string): KubeObject => {
  const body = JSON.parse(readFileSync(join(FIXTURES, file), "utf8")).response.body;
  return body.items ? body.items[0] : body;
};
const keys = (o: KubeObject | undefined) => Object.keys(o ?? {}).sort();

const clock = createFakeClock(Date.UTC(2026, 5, 1));
let sim: Simulator;
const get = (group: string, plural: string, ns: string | undefined, filter: (o: KubeObject) => boolean = () => true) =>
  sim.store.list(sim.typeOf(group, "v1", plural), ns).filter(filter);

beforeAll(async () => {
  sim = await startSimulator({ now: () => clock.now(), controllers: clock });
  sim.apply(readyNode("node-1", clock.now() - 86_400_000));
  sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "fx" } });
  sim.apply({
    apiVersion: "v1",
    kind: "Service",
    metadata: { namespace: "fx", name: "web", labels: { app: "web" } },
    spec: { selector: { app: "web" }, ports: [{ name: "http", port: 80, targetPort: "http" }] },
  });
  sim.apply({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { namespace: "fx", name: "web", labels: { app: "web" } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: { containers: [{ name: "web", image: "nginx:1.27", ports: [{ name: "http", containerPort: 8080 }] }] },
      },
    },
  });
  sim.apply({
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { namespace: "fx", name: "migrate" },
    spec: {
      backoffLimit: 0,
      template: {
        metadata: { labels: { app: "migrate" }, annotations: { "sim.mon.io/fate": "fail" } },
        spec: { restartPolicy: "Never", containers: [{ name: "migrate", image: "busybox:1" }] },
      },
    },
  });
  await clock.advance(30_000);
});
afterAll(async () => {
  await sim.stop();
});

describe("objects the controllers write have kube-controller-manager's shape", () => {
  test("a Deployment and its ReplicaSet: status fields, labels and annotations", () => {
    const [deployment] = get("apps", "deployments", "fx");
    const real = recorded("10-deployment-available.json");
    expect(keys(deployment?.status)).toEqual(keys(real.status));
    expect(keys(deployment?.metadata.annotations)).toEqual(keys(real.metadata.annotations));
    expect(deployment?.status.conditions.map((c: KubeObject) => `${c.type} ${c.reason}`)).toEqual(
      real.status.conditions.map((c: KubeObject) => `${c.type} ${c.reason}`),
    );
    const [rs] = get("apps", "replicasets", "fx");
    const realRs = recorded("11-replicaset-ready.json");
    expect(keys(rs?.status)).toEqual(keys(realRs.status));
    expect(keys(rs?.metadata.labels)).toEqual(keys(realRs.metadata.labels));
    expect(keys(rs?.metadata.annotations)).toEqual(keys(realRs.metadata.annotations));
  });

  test("a running, ready pod: status fields and condition types in the kubelet's order", () => {
    const [pod] = get("", "pods", "fx", (p) => p.metadata.labels?.app === "web");
    const real = recorded("12-pods-running-ready.json");
    expect(keys(pod?.status)).toEqual(keys(real.status));
    expect(pod?.status.conditions.map((c: KubeObject) => c.type)).toEqual(
      real.status.conditions.map((c: KubeObject) => c.type),
    );
    expect(keys(pod?.status.containerStatuses[0])).toEqual(
      keys(real.status.containerStatuses[0]).filter(
        (k) => k !== "volumeMounts" && k !== "resources" && k !== "user" && k !== "allocatedResources",
      ),
    );
  });

  test("an EndpointSlice: labels, endpoint fields (no zone: the simulator's nodes have none) and named ports resolved", () => {
    const [slice] = get("discovery.k8s.io", "endpointslices", "fx");
    const real = recorded("13-endpointslice-ready.json");
    expect(keys(slice?.metadata.labels)).toEqual(keys(real.metadata.labels));
    expect(keys(slice?.endpoints[0])).toEqual(keys(real.endpoints[0]).filter((k) => k !== "zone"));
    expect(slice?.ports).toEqual(real.ports);
  });

  test("a Job past its backoffLimit: status fields and conditions", () => {
    const [job] = get("batch", "jobs", "fx");
    const real = recorded("33-job-failed.json");
    expect(keys(job?.status)).toEqual(keys(real.status));
    expect(keys(job?.metadata.labels)).toEqual(keys(real.metadata.labels));
    expect(job?.status.conditions.map((c: KubeObject) => `${c.type} ${c.reason}`)).toEqual(
      real.status.conditions.map((c: KubeObject) => `${c.type} ${c.reason}`),
    );
  });
});
