import { expect, test } from "bun:test";
import { demoScenario } from "../sim/scenarios/demo.ts";
import { startScenario } from "../testing/replay.ts";

/**
 * `mon demo`'s story through the real daemon on a fake clock, with the exact messages a platform engineer should
 * get according to the spec. Judgement calls:
 * - worker-3 is one incident rooted at the node, counting the three pods on it (spec 1.4: one incident, not one
 *   per pod); its pods are not told apart.
 * - checkout crash-loops because orders-db refuses: the incident names the dependency, with checkout as the
 *   workload failing on it (rule 4), not "Deployment checkout unavailable".
 * - checkout's second pod crashing is news, but it falls inside the 5-minute update cooldown and the incident
 *   resolves before the cooldown ends: the resolve is the next message, no update (spec 3.1).
 * - every resolve says what is true now (rule 9).
 */
test("mon demo: three incidents, each announced once and resolved once, with the exact messages", async () => {
  const run = await startScenario(demoScenario, { clusterName: "demo" });
  try {
    await run.runTo(run.lengthSeconds + 20);
    const told = run.told();
    expect(told.map((m) => `${m.action} ${m.incidentId} ${m.reason}`)).toEqual([
      "announce Node//worker-3 NodeLost",
      "announce Endpoint//orders-db.shop:5432 DependencyUnreachable",
      "announce Deployment/shop/cart ImagePullBackOff",
      "resolve Node//worker-3 NodeLost",
      "resolve Endpoint//orders-db.shop:5432 DependencyUnreachable",
      "resolve Deployment/shop/cart ImagePullBackOff",
    ]);
    const headline = (i: number) => told[i]!.text.split("\n")[0];
    expect(headline(0)).toBe("🟠 node worker-3: unreachable, 3 pods on it down [demo]");
    expect(headline(1)).toBe(
      "🟠 endpoint orders-db.shop:5432: unreachable, 1 workload failing on it (deployment shop/checkout) [demo]",
    );
    expect(told[1]!.text).toContain("connect: connection refused");
    expect(told[1]!.text).toContain("postgres://checkout:[redacted]@orders-db.shop:5432/orders");
    expect(headline(2)).toBe("🟠 deployment shop/cart: ImagePullBackOff in 1 pod [demo]");
    expect(told[2]!.text).toContain("cannot pull image ghcr.io/shop/cart:1.4.O");
    expect(told.slice(3).map((m) => m.text.split("\n").slice(0, 2).join(" | "))).toEqual([
      "✅ Resolved: node worker-3 [demo] | Now: node Ready again; 3 pods running.",
      "✅ Resolved: endpoint orders-db.shop:5432 [demo] | Now: deployment shop/checkout 2/2 replicas available.",
      "✅ Resolved: deployment shop/cart [demo] | Now: 2/2 replicas available.",
    ]);
    // Each is told when it happens: the node at 2 s, checkout after its third restart, cart at once (its pod
    // has waited past the pull hold), the resolves after the fixes at 16 s, 19 s and 22 s.
    expect(told.map((m) => Math.floor(m.t))).toEqual([2, 5, 8, 16, 19, 22]);
  } finally {
    await run.stop();
  }
});
