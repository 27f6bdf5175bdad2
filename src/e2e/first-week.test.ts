import { describe, expect, test } from "bun:test";
import { nodeReady } from "../sim/scenarios/builders.ts";
import { startCaptureServer } from "../testing/capture-server.ts";
import { useCleanup } from "../testing/cleanup.ts";
import { deliverySettled, seedShop, seedWorkload, startTestCluster } from "../testing/cluster.ts";

/**
 * Issue 29, "the first week with mon": what a platform engineer trips over, each through the real daemon or
 * the binary.
 */
const track = useCleanup();

describe("messages and routing", () => {
  test("1. a Pro route on namespaces gets an incident spanning namespaces when any of its findings is there", async () => {
    const shopHook = track(await startCaptureServer());
    const opsHook = track(await startCaptureServer());
    const cluster = track(
      await startTestCluster(
        {
          webhook: { url: `${shopHook.url}/mon`, routes: [{ namespaces: ["shop"] }] },
          alertmanager: { urls: [opsHook.url], routes: [{ namespaces: ["ops"] }] },
        },
        { cluster: "prod", edition: "pro" },
      ),
    );
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    // n3 also runs billing's ledger: the node's incident names billing's pod first (by key), then shop's.
    seedWorkload(sim, "billing", "ledger", ["n3"], clock.now());
    await cluster.settle();
    sim.patchStatus("v1", "Node", undefined, "n3", { conditions: [nodeReady("Unknown", clock.now())] });
    await cluster.settle();
    await deliverySettled(cluster.daemon);
    const told = shopHook.requests.map((r) => r.json());
    expect(told.map((b) => [b.action, b.incidentId])).toEqual([["announce", "Node//n3"]]);
    expect(told[0].findings.map((f: { object: { namespace?: string } }) => f.object.namespace)).toContain("billing");
    // The route on ops matches none of its findings.
    expect(opsHook.requests).toEqual([]);
  });
});
