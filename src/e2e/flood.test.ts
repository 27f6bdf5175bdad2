import { word } from "../testing/words.ts";
import { describe, expect, test } from "bun:test";
import { readyNode } from "../sim/scenarios/builders.ts";
import { startCaptureServer, waitUntil } from "../testing/capture-server.ts";
import { useCleanup } from "../testing/cleanup.ts";
import { crashPod, seedWorkload, startTestCluster } from "../testing/cluster.ts";

const track = useCleanup();

describe("a flood costs what its workloads cost, not what its pods cost (issue 30)", () => {
  test("400 pods of 40 Deployments crash at once: one log read per Deployment, at most 50 findings of each problem in a message that still names every workload", async () => {
    const hook = track(await startCaptureServer());
    const cluster = track(await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { cluster: "prod" }));
    const { sim, clock } = cluster;
    const nodes = Array.from({ length: 10 }, (_, i) => `n${i}`);
    for (const node of nodes) sim.apply(readyNode(node, clock.now() - 86_400_000));
    for (let d = 0; d < 40; d++) seedWorkload(sim, `team-${word(d % 4)}`, `service-${word(d)}`, nodes, clock.now());
    await cluster.settle();
    for (let d = 0; d < 40; d++)
      for (let p = 0; p < 10; p++) {
        const [namespace, pod] = [`team-${word(d % 4)}`, `service-${word(d)}-abc12-p${p}`];
        sim.setLogs(namespace, pod, `service-${word(d)}`, `starting\npanic: ${word(d)} cannot reach its queue\n`, true);
        crashPod(sim, namespace, pod, 4, clock.now(), `panic: ${word(d)} cannot reach its queue`);
      }
    await cluster.settle();
    await clock.advance(6_000);
    await cluster.settle();
    await waitUntil(() => hook.requests.length > 0, "the flood's announcement");
    const reads = /mon_investigations_total\{result="done"\} (\d+)/.exec(
      await cluster.daemon.metrics.registry.getSingleMetricAsString("mon_investigations_total"),
    );
    // Pods of one ReplicaSet crash with one error: one read stands for all ten.
    expect(Number(reads?.[1])).toBe(40);
    const bodies = hook.requests.map((r) => r.json());
    for (const b of bodies) {
      // At most 50 findings of each problem (here a namespace), 250 in all.
      expect(b.findings.length).toBeLessThanOrEqual(250);
      const perNamespace = new Map<string, number>();
      for (const f of b.findings as { object: { namespace: string } }[])
        perNamespace.set(f.object.namespace, (perNamespace.get(f.object.namespace) ?? 0) + 1);
      for (const count of perNamespace.values()) expect(count).toBeLessThanOrEqual(50);
    }
    // Every workload is still counted, and every finding a message carries has its log.
    expect(
      bodies
        .map((b) => b.text)
        .join("\n")
        .match(/namespace team-\w+: outage, 10 workloads failing/g),
    ).toHaveLength(4);
    const carried = bodies.flatMap((b) => b.findings);
    expect(carried.length).toBeGreaterThan(0);
    for (const f of carried) expect(JSON.stringify(f.evidence)).toContain("cannot reach its queue");
  }, 60_000);
});
