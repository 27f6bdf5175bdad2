import { afterEach, expect, test } from "bun:test";
import { startSimulator, type Simulator } from "../sim/simulator.ts";
import { simRequest } from "../testing/sim-client.ts";
import { connectKube } from "./connection.ts";
import { readContainerLog } from "./pod-logs.ts";

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
  expect(text).toContain("connect: connection refused");
});
