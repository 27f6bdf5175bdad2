import { describe, expect, test } from "bun:test";
import { startCaptureServer } from "../testing/capture-server.ts";
import { useCleanup } from "../testing/cleanup.ts";
import { crashPod, seedShop, startTestCluster } from "../testing/cluster.ts";

/**
 * Every figure of a message from one snapshot, true when it is sent (issue 41, item 3), through the real
 * daemon: the pods a crash loop counts, the replicas available beside the backends ready.
 */
const track = useCleanup();

describe("figures a message gives", () => {
  test("a second pod crash-looping like the first is counted at once, and replicas available agree with the pods", async () => {
    const hook = track(await startCaptureServer());
    const c = track(await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { cluster: "prod" }));
    seedShop(c.sim, c.clock.now());
    await c.settle();
    crashPod(c.sim, "shop", "api-abc12-p0", 4, c.clock.now());
    await c.settle();
    const [announce] = await hook.waitFor(1);
    const first = announce!.json();
    expect(first.text).toStartWith("🟠 deployment shop/api: CrashLoopBackOff in 1 pod [prod]\n");
    // The Deployment's status still says 2 available; its pods say 1.
    expect(first.text).toContain("deployment shop/api 1/2 available.");
    for (let i = 0; i < 6; i++) {
      await c.clock.advance(60_000);
      await c.settle();
    }
    // The second pod's first crash: its own 3-minute hold would wait, but the incident already tells this failure.
    crashPod(c.sim, "shop", "api-abc12-p1", 1, c.clock.now());
    await c.settle();
    await c.clock.advance(60_000);
    await c.settle();
    // Delivered in the minute after the second crash (waiting on the webhook's answer, not on time).
    const update = (await hook.waitFor(2))[1]!.json();
    expect(update.action).toBe("update");
    expect(update.text).toStartWith(
      "🟠 Update: deployment shop/api: CrashLoopBackOff in 2 pods [prod]\n• now affects 2 pods: shop/api-abc12-p0, shop/api-abc12-p1\n",
    );
    expect(update.text).toContain("deployment shop/api 0/2 available.");
  });
});
