import { describe, expect, test } from "bun:test";
import { startCaptureServer, waitUntil } from "../testing/capture-server.ts";
import { useCleanup } from "../testing/cleanup.ts";
import { crashPod, healPod, seedShop, seedWorkload, startTestCluster } from "../testing/cluster.ts";

/**
 * Trust after a restart (issue 52 items 1 and 2), a Community mon restarted on the simulator: what already fails
 * when it starts has no known onset, so it is never "a namespace that failed at once"; a failure that begins
 * afterwards is told on its own; and a thread the first process opened keeps its key, so its resolve closes what
 * a pager was sent.
 */
const track = useCleanup();

interface Told {
  action: string;
  incidentId: string;
  dedupKey: string;
  delivery?: string;
  covers?: string[];
}

describe("after a restart", () => {
  test("failures already there are summed up each on its own, a new crash loop is announced alone, and a told thread resolves under its key", async () => {
    const hook = track(await startCaptureServer());
    const alert = { webhook: { url: `${hook.url}/mon` } };
    const first = track(await startTestCluster(alert));
    const { sim, clock } = first;
    const told = () => hook.requests.map((r) => r.json() as Told);
    seedShop(sim, clock.now());
    for (const name of ["orders", "billing", "search", "catalog", "payments"])
      seedWorkload(sim, "shop", name, ["n1"], clock.now());
    await first.settle();
    crashPod(sim, "shop", "orders-abc12-p0", 5, clock.now());
    await waitUntil(async () => {
      await first.settle();
      await clock.advance(30_000);
      return told().some((m) => m.action === "announce" && m.incidentId === "Deployment/shop/orders");
    }, "the first process's announce of orders");
    const key = told().find((m) => m.incidentId === "Deployment/shop/orders")!.dedupKey;
    await first.stopDaemon();
    // While mon is down, three more Deployments start failing: 4 of the namespace's 7 fail.
    crashPod(sim, "shop", "billing-abc12-p0", 5, clock.now());
    await clock.advance(60_000);
    crashPod(sim, "shop", "search-abc12-p0", 5, clock.now());
    crashPod(sim, "shop", "catalog-abc12-p0", 5, clock.now());
    await clock.advance(60_000);
    const before = hook.requests.length;

    const second = track(await startTestCluster(alert, { sim, clock }));
    await waitUntil(async () => {
      await second.settle();
      await clock.advance(15_000);
      return told().some((m) => m.delivery === "startup summary");
    }, "the startup summary");
    const summary = told().find((m) => m.delivery === "startup summary")!;
    expect([...summary.covers!].sort()).toEqual([
      "Deployment/shop/billing",
      "Deployment/shop/catalog",
      "Deployment/shop/orders",
      "Deployment/shop/search",
    ]);

    // A new crash loop, after the start: told on its own within its hold, not folded away.
    crashPod(sim, "shop", "payments-abc12-p0", 5, clock.now());
    const created = clock.now();
    await waitUntil(async () => {
      await second.settle();
      await clock.advance(15_000);
      return told().some((m) => m.action === "announce" && m.incidentId === "Deployment/shop/payments");
    }, "the new crash loop's announce");
    expect(clock.now() - created).toBeLessThanOrEqual(5 * 60_000);

    // The thread the first process opened resolves under the key the pager was sent.
    healPod(sim, "shop", "orders-abc12-p0", 6, clock.now());
    await waitUntil(async () => {
      await second.settle();
      await clock.advance(15_000);
      return told().some((m) => m.action === "resolve" && m.incidentId === "Deployment/shop/orders");
    }, "orders resolved");
    const resolve = told().find((m) => m.action === "resolve" && m.incidentId === "Deployment/shop/orders")!;
    expect(resolve.dedupKey).toBe(key);
    expect(
      told()
        .slice(before)
        .some((m) => m.incidentId.startsWith("Namespace/")),
    ).toBe(false);
  }, 60_000);
});
