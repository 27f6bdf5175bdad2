import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFakeClock } from "../runtime/clock.ts";
import { readyNode } from "../sim/scenarios/builders.ts";
import { startSimulator, type Simulator } from "../sim/simulator.ts";
import { runKubectl } from "../testing/kubectl.ts";

/**
 * What a user does by hand against `mon sim`: the real kubectl (which sends protobuf for built-in kinds)
 * creates and scales workloads, and the simulator's controllers run them. The controllers run on a fake clock
 * that the test moves, so nothing depends on how fast the machine is.
 */
const clock = createFakeClock(Date.UTC(2026, 5, 1));
const dir = mkdtempSync(join(tmpdir(), "mon-kubectl-controllers-"));
let sim: Simulator;
let kubeconfig: string;

beforeAll(async () => {
  sim = await startSimulator({ now: () => clock.now(), controllers: clock });
  for (const node of ["worker-1", "worker-2", "worker-3"]) sim.apply(readyNode(node, clock.now() - 86_400_000));
  kubeconfig = join(dir, "kubeconfig");
  writeFileSync(kubeconfig, sim.kubeconfig());
});
afterAll(async () => {
  await sim.stop();
});

function kubectl(...args: string[]): Promise<{ status: number; out: string }> {
  return runKubectl(kubeconfig, ...args);
}

async function json(...args: string[]): Promise<Record<string, any>> {
  const r = await kubectl(...args, "-o", "json");
  expect(r.status).toBe(0);
  return JSON.parse(r.out);
}

describe("kubectl by hand against the simulator's controllers", () => {
  test("create deployment sends protobuf; the Deployment is what --dry-run=client shows, and its pods become Ready", async () => {
    expect(await kubectl("create", "namespace", "shop")).toEqual({ status: 0, out: "namespace/shop created\n" });
    const args = ["-n", "shop", "create", "deployment", "web", "--image=nginx:1.27", "--replicas=3", "--port=8080"];
    const intended = await json(...args, "--dry-run=client");
    expect(await kubectl(...args)).toEqual({ status: 0, out: "deployment.apps/web created\n" });
    await clock.advance(5_000);
    const stored = await json("-n", "shop", "get", "deployment", "web");
    expect(stored.spec.replicas).toBe(intended.spec.replicas);
    expect(stored.spec.selector).toEqual(intended.spec.selector);
    expect(stored.spec.template.metadata.labels).toEqual(intended.spec.template.metadata.labels);
    expect(stored.spec.template.spec.containers[0]).toMatchObject({
      name: intended.spec.template.spec.containers[0].name,
      image: "nginx:1.27",
      ports: [{ containerPort: 8080 }],
    });
    expect(stored.status).toMatchObject({ replicas: 3, readyReplicas: 3, availableReplicas: 3, updatedReplicas: 3 });
    const pods = await json("-n", "shop", "get", "pods", "-l", "app=web");
    expect(pods.items.map((p: any) => p.status.phase)).toEqual(["Running", "Running", "Running"]);
    expect(new Set(pods.items.map((p: any) => p.spec.nodeName))).toEqual(new Set(["worker-1", "worker-2", "worker-3"]));
  });

  test("create service gets an EndpointSlice with the ready pods on the target port", async () => {
    expect((await kubectl("-n", "shop", "create", "service", "clusterip", "web", "--tcp=80:8080")).status).toBe(0);
    await clock.advance(1_000);
    const slices = await json("-n", "shop", "get", "endpointslices", "-l", "kubernetes.io/service-name=web");
    expect(slices.items).toHaveLength(1);
    expect(slices.items[0].ports).toEqual([{ name: "80-8080", port: 8080, protocol: "TCP" }]);
    expect(slices.items[0].endpoints.map((e: any) => e.conditions.ready)).toEqual([true, true, true]);
  });

  test("scale changes the replicas through the scale subresource; the surplus pods terminate and leave the Service", async () => {
    expect(await kubectl("-n", "shop", "scale", "deployment", "web", "--replicas=1")).toEqual({
      status: 0,
      out: "deployment.apps/web scaled\n",
    });
    await clock.advance(3_000);
    expect((await json("-n", "shop", "get", "pods", "-l", "app=web")).items).toHaveLength(1);
    const slice = (await json("-n", "shop", "get", "endpointslices", "-l", "kubernetes.io/service-name=web")).items[0];
    expect(slice.endpoints).toHaveLength(1);
  });

  test("create configmap and secret keep their data; a pod waiting for the ConfigMap starts when it exists", async () => {
    const manifest = join(dir, "reports.yaml");
    writeFileSync(
      manifest,
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: reports, namespace: shop}\nspec:\n  selector: {matchLabels: {app: reports}}\n  template:\n    metadata: {labels: {app: reports}}\n    spec:\n      containers:\n      - name: reports\n        image: registry.example/reports:1.0\n        envFrom: [{configMapRef: {name: reports-config}}]\n",
    );
    expect((await kubectl("apply", "-f", manifest)).status).toBe(0);
    await clock.advance(3_000);
    const waiting = (await json("-n", "shop", "get", "pods", "-l", "app=reports")).items[0];
    expect(waiting.status.containerStatuses[0].state.waiting).toEqual({
      reason: "CreateContainerConfigError",
      message: 'configmap "reports-config" not found',
    });
    const cm = [
      "-n",
      "shop",
      "create",
      "configmap",
      "reports-config",
      "--from-literal=mode=fast",
      "--from-literal=size=2",
    ];
    expect((await kubectl(...cm)).status).toBe(0);
    expect((await json("-n", "shop", "get", "configmap", "reports-config")).data).toEqual(
      (await json(...cm, "--dry-run=client")).data,
    );
    const secret = ["-n", "shop", "create", "secret", "generic", "db", "--from-literal=password=hunter2"];
    expect((await kubectl(...secret)).status).toBe(0);
    const stored = await json("-n", "shop", "get", "secret", "db");
    expect(stored.data).toEqual({ password: Buffer.from("hunter2").toString("base64") });
    expect(stored.type).toBe("Opaque");
    await clock.advance(3_000);
    const started = (await json("-n", "shop", "get", "pods", "-l", "app=reports")).items[0];
    expect(started.status.phase).toBe("Running");
  });

  test("an image tag chooses the pod's fate: :crash crash-loops with the kubelet's back-off", async () => {
    expect(
      (await kubectl("-n", "shop", "create", "deployment", "api", "--image=registry.example/api:crash")).status,
    ).toBe(0);
    await clock.advance(5_000);
    const pod = (await json("-n", "shop", "get", "pods", "-l", "app=api")).items[0];
    const status = pod.status.containerStatuses[0];
    expect(status.state.waiting.reason).toBe("CrashLoopBackOff");
    expect(status.lastState.terminated).toMatchObject({ exitCode: 1, reason: "Error" });
    await clock.advance(40_000);
    const later = (await json("-n", "shop", "get", "pods", "-l", "app=api")).items[0].status.containerStatuses[0];
    expect(later.restartCount).toBe(2);
  });

  test("stopping a node's kubelet by annotation: 50 s later the node controller marks it Unknown and taints it", async () => {
    expect((await kubectl("annotate", "node", "worker-2", "sim.mon.io/kubelet=stopped")).status).toBe(0);
    await clock.advance(49_000);
    expect((await json("get", "node", "worker-2")).status.conditions.find((c: any) => c.type === "Ready").status).toBe(
      "True",
    );
    await clock.advance(2_000);
    const node = await json("get", "node", "worker-2");
    expect(node.status.conditions.find((c: any) => c.type === "Ready")).toMatchObject({
      status: "Unknown",
      reason: "NodeStatusUnknown",
    });
    expect(node.spec.taints.map((t: any) => `${t.key}:${t.effect}`)).toEqual([
      "node.kubernetes.io/unreachable:NoSchedule",
      "node.kubernetes.io/unreachable:NoExecute",
    ]);
  });

  test("a kind the simulator cannot read from protobuf answers 415 with a one-line reason", async () => {
    const r = await kubectl("-n", "shop", "create", "cronjob", "nightly", "--image=busybox", "--schedule=0 3 * * *");
    expect(r.status).not.toBe(0);
    expect(r.out).toContain("the simulator cannot decode CronJob from protobuf; send JSON");
  });
});
