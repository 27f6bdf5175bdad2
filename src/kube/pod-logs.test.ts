import { afterEach, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { foldSharedErrors } from "../correlate/shared-errors.ts";
import { withLog } from "../detect/evidence.ts";
import { forgetPreviousLogs } from "../sim/controllers/kubelet.ts";
import { KUBELET_ANNOTATION } from "../sim/controllers/node-lifecycle.ts";
import { startSimulator, type Simulator } from "../sim/simulator.ts";
import type { KubeObject } from "../sim/store.ts";
import { simRequest } from "../testing/sim-client.ts";
import { connectKube } from "./connection.ts";
import { kubeletLogError, readContainerLog } from "./pod-logs.ts";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
});

test("a crashed container's log is read as kube-apiserver v1.32 serves it: Accept text/plain alone is refused (406), mon's reader asks as client-go does and gets the text (issue 40)", async () => {
  sim = await startSimulator();
  sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } });
  sim.apply({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace: "shop", name: "api-1" },
    spec: { containers: [{ name: "api", image: "registry.example/api:1" }] },
  });
  sim.setLogs("shop", "api-1", "api", "starting\nError: dial tcp 10.0.0.9:5432: connect: connection refused\n", true);
  const path = "/api/v1/namespaces/shop/pods/api-1/log?container=api&previous=true";
  expect((await simRequest(sim, "GET", path, { accept: "text/plain" })).status).toBe(406);
  const text = await readContainerLog(await connectKube({ kubeconfigText: sim.kubeconfig() }), {
    namespace: "shop",
    pod: "api-1",
    container: "api",
    previous: true,
  });
  expect("text" in text && text.text).toContain("connect: connection refused");
});

describe("a log that cannot be read says so (issue 50)", () => {
  test("the kubelet's own error, written as a 200 body once it no longer has the container, is never a log", () => {
    // What kube-apiserver v1.32 served from kubelet v1.32.13 for `--previous` after the kubelet restarted.
    expect(
      kubeletLogError(
        "unable to retrieve container logs for containerd://f6b69481ff585952150cd2e1a48af503e0777355ebc8b7ffe852010ee1094da0",
      ),
    ).toBe("its output is gone: the kubelet no longer has the container");
    expect(
      kubeletLogError(
        'failed to try resolving symlinks in path "/var/log/pods/shop_api-x_1/api/3.log": lstat /var/log/pods/shop_api-x_1/api/3.log: no such file or directory',
      ),
    ).toBe("its output is gone: the kubelet no longer has its log file");
  });

  test("whatever a container printed, of one line or many, its log is its log", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 80 }), { minLength: 1, maxLength: 6 }), (lines) => {
        const text = `${lines.join("\n")}\n`;
        expect(kubeletLogError(text)).toBeUndefined();
        // Even a line quoting the kubelet's words among others.
        expect(kubeletLogError(`starting\nunable to retrieve container logs for containerd://abc\n`)).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  test("the evidence says why under its own label, which ties no workloads together as a shared error would", () => {
    const f = {
      key: "CrashLoopBackOff/Pod/shop/api-1/api",
      reason: "CrashLoopBackOff",
      object: { kind: "Pod", namespace: "shop", name: "api-1" },
      tier: "medium" as const,
      summary: "crash",
      evidence: [],
      since: 0,
    };
    const gone = withLog(f, { unavailable: "its output is gone: the kubelet no longer has the container" });
    expect(gone.evidence).toEqual([
      { label: "log unavailable", value: "its output is gone: the kubelet no longer has the container" },
    ]);
    expect(withLog(f, { lines: ["panic: boom"] }).evidence).toEqual([{ label: "log", value: "panic: boom" }]);
    const drafts = ["a", "b"].map((name) => ({
      root: { kind: "Deployment", namespace: "shop", name },
      rootReason: "CrashLoopBackOff",
      findings: [{ ...gone, key: `${gone.key}-${name}`, object: { ...gone.object, name: `${name}-1` } }],
    }));
    expect(foldSharedErrors(drafts, () => false).map((d) => d.root.kind)).toEqual(["Deployment", "Deployment"]);
  });
});

describe("the simulator's kubelet answers a log read as the real one did (issue 50)", () => {
  test("a pod on a node whose kubelet is stopped: 500 with the API server's dial error, said as why", async () => {
    sim = await startSimulator();
    sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } });
    sim.apply({
      apiVersion: "v1",
      kind: "Node",
      metadata: { name: "n1", annotations: { [KUBELET_ANNOTATION]: "stopped" } },
      status: { addresses: [{ type: "InternalIP", address: "10.0.1.21" }] },
    });
    sim.apply({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { namespace: "shop", name: "api-1" },
      spec: { nodeName: "n1", containers: [{ name: "api", image: "registry.example/api:1" }] },
    });
    sim.setLogs("shop", "api-1", "api", "Error: boom\n", true);
    const read = await readContainerLog(await connectKube({ kubeconfigText: sim.kubeconfig() }), {
      namespace: "shop",
      pod: "api-1",
      container: "api",
      previous: true,
    });
    expect(read).toEqual({
      unavailable:
        'HTTP 500: Get "https://n1:10250/containerLogs/shop/api-1/api": dial tcp 10.0.1.21:10250: connect: connection refused',
    });
  });

  test("a kubelet back from a stop no longer has its containers' previous instances: --previous is its error, until the next end", async () => {
    sim = await startSimulator();
    sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } });
    sim.apply({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { namespace: "shop", name: "api-1" },
      spec: { containers: [{ name: "api", image: "registry.example/api:1" }] },
    });
    const pod = {
      metadata: { namespace: "shop", name: "api-1" },
      status: {
        containerStatuses: [{ name: "api", lastState: { terminated: { containerID: "containerd://0a1b2c3d4e5f" } } }],
      },
    } as KubeObject;
    forgetPreviousLogs([pod], (ns, p, c, text, previous) => sim!.setLogs(ns, p, c, text, previous));
    const read = await readContainerLog(await connectKube({ kubeconfigText: sim.kubeconfig() }), {
      namespace: "shop",
      pod: "api-1",
      container: "api",
      previous: true,
    });
    expect(read).toEqual({ unavailable: "its output is gone: the kubelet no longer has the container" });
  });
});
