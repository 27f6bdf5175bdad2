import { describe, expect, test } from "bun:test";
import type { Simulator } from "../sim/simulator.ts";
import { startCaptureServer, waitUntil } from "../testing/capture-server.ts";
import { useCleanup } from "../testing/cleanup.ts";
import { seedShop, seedWorkload, startTestCluster } from "../testing/cluster.ts";

/**
 * A lost node takes only what a lost node causes (issue 52 item 5), through the real daemon on the simulator: an
 * image that does not exist — one already told, one begun a minute before the node went — stays its own incident,
 * and the node's incident neither names nor counts them.
 */
const track = useCleanup();

function pullFails(sim: Simulator, name: string, image: string, at: number): void {
  // A pod of a rollout, started at `at`, whose image does not exist.
  sim.patchStatus("v1", "Pod", "shop", name, {
    phase: "Pending",
    startTime: new Date(at).toISOString(),
    containerStatuses: [
      {
        name: name.split("-")[0],
        image,
        imageID: "",
        ready: false,
        started: false,
        restartCount: 0,
        state: {
          waiting: {
            reason: "ImagePullBackOff",
            message: `Back-off pulling image "${image}": ErrImagePull: ${image}: not found`,
          },
        },
      },
    ],
    conditions: [{ type: "Ready", status: "False", lastTransitionTime: new Date(at).toISOString() }],
  });
}

describe("what a lost node is blamed for", () => {
  test("image pull failures on a node that is then lost stay their own incidents; the node's names only its pods' loss", async () => {
    const hook = track(await startCaptureServer());
    const c = track(await startTestCluster({ webhook: { url: `${hook.url}/mon` } }));
    const { sim, clock } = c;
    seedShop(sim, clock.now());
    seedWorkload(sim, "shop", "cart", ["n3"], clock.now());
    seedWorkload(sim, "shop", "promo", ["n3"], clock.now());
    await c.settle();
    const told = () =>
      hook.requests.map((r) => r.json() as { action: string; incidentId: string; text: string; covers?: string[] });
    const ids = () => told().flatMap((m) => [m.incidentId, ...(m.covers ?? [])]);
    // cart's image is mistyped and told; minutes later promo's begins failing the same way, and 70 s after that
    // n3 is lost.
    pullFails(sim, "cart-abc12-p0", "ghcr.io/shop/cart:1.4.O", clock.now());
    await waitUntil(async () => {
      await c.settle();
      await clock.advance(30_000);
      return ids().includes("Deployment/shop/cart");
    }, "cart's announce");
    pullFails(sim, "promo-abc12-p0", "ghcr.io/shop/promo:2.O", clock.now());
    await clock.advance(70_000);
    await c.settle();
    sim.patchStatus("v1", "Node", undefined, "n3", {
      conditions: [
        {
          type: "Ready",
          status: "Unknown",
          reason: "NodeStatusUnknown",
          lastTransitionTime: new Date(clock.now()).toISOString(),
        },
      ],
    });
    await waitUntil(async () => {
      await c.settle();
      await clock.advance(30_000);
      return ids().includes("Node//n3") && ids().includes("Deployment/shop/promo");
    }, "the node's announce and promo's").catch((e) => {
      console.log(
        JSON.stringify(told().map((m) => [m.action, m.incidentId, m.covers, m.text.split("\n").slice(0, 6)])),
      );
      throw e;
    });
    for (let i = 0; i < 6; i++) {
      await clock.advance(30_000);
      await c.settle();
    }
    const node = told().filter((m) => m.incidentId === "Node//n3");
    expect(node.length).toBeGreaterThan(0);
    // Its findings are the node and the pod that went down with it; the image pulls are not among them (the Impact
    // line may still name their Deployments: they are on the node, and unavailable).
    for (const m of node) {
      expect(m.text).not.toContain("ImagePullBackOff");
      expect(m.text).not.toMatch(/• pod shop\/(promo|cart)/);
      expect(m.text.split("\n")[0]).toContain("1 pod on it down");
    }
    // cart's thread never became part of the node's.
    expect(told().some((m) => m.incidentId === "Deployment/shop/cart" && m.text.includes("now part of"))).toBe(false);
  }, 60_000);
});
