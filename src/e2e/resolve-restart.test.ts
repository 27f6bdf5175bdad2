import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useCleanup } from "../testing/cleanup.ts";
import { startCaptureServer, waitUntil } from "../testing/capture-server.ts";
import { crashPod, seedShop, startTestCluster } from "../testing/cluster.ts";

/**
 * No resolve is lost across a restart (issue 19): a problem that ended while mon was down is resolved by the
 * next process, in the same conversation (Pro keeps its incidents in the state file).
 */
const track = useCleanup();

describe("resolves across restarts (issue 19)", () => {
  test("Pro: a crash-looping pod deleted while mon was down gets its resolve from the next process, with the announcement's dedup key", async () => {
    const hook = track(await startCaptureServer());
    const dataDir = mkdtempSync(join(tmpdir(), "mon-resolve-"));
    const first = await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { edition: "pro", dataDir });
    const { sim, clock } = first;
    seedShop(sim, clock.now());
    await first.settle();
    crashPod(sim, "shop", "web-abc12-p0", 4, clock.now());
    await first.settle();
    const [announced] = await hook.waitFor(1);
    expect(announced!.json()).toMatchObject({ action: "announce", incidentId: "Deployment/shop/web" });
    await first.stopDaemon();

    // While mon is down, the pod goes away (its Deployment scaled to zero).
    sim.remove("v1", "Pod", "shop", "web-abc12-p0");
    const dep = sim.store.get(sim.typeOf("apps", "v1", "deployments"), "shop", "web");
    sim.apply({ ...dep, spec: { ...dep.spec, replicas: 0 } });

    const second = track(
      await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { edition: "pro", dataDir, sim, clock }),
    );
    await second.settle();
    await waitUntil(() => hook.requests.some((r) => r.json().action === "resolve"), "the resolve");
    const resolve = hook.requests.find((r) => r.json().action === "resolve")!.json();
    expect(resolve).toMatchObject({ incidentId: "Deployment/shop/web", dedupKey: announced!.json().dedupKey });
    // Nothing calls it "still open" first (issue 30): the restored summary waits for the first pass and names
    // only what is still failing — here nothing, so there is none.
    await second.daemon.sent();
    expect(hook.requests.map((r) => r.json().delivery)).not.toContain("restored summary");
  });

  test("Pro: of two problems open at a restart, the one that ended while mon was down is resolved, the other alone is named still open", async () => {
    const hook = track(await startCaptureServer());
    const dataDir = mkdtempSync(join(tmpdir(), "mon-resolve-"));
    const first = await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { edition: "pro", dataDir });
    const { sim, clock } = first;
    seedShop(sim, clock.now());
    await first.settle();
    crashPod(sim, "shop", "web-abc12-p0", 4, clock.now());
    await first.settle();
    await hook.waitFor(1);
    await clock.advance(60_000);
    crashPod(sim, "shop", "api-abc12-p0", 4, clock.now());
    await first.settle();
    await hook.waitFor(2);
    await first.stopDaemon();

    sim.remove("v1", "Pod", "shop", "web-abc12-p0");
    const dep = sim.store.get(sim.typeOf("apps", "v1", "deployments"), "shop", "web");
    sim.apply({ ...dep, spec: { ...dep.spec, replicas: 0 } });

    const second = track(
      await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { edition: "pro", dataDir, sim, clock }),
    );
    await second.settle();
    const restored = () => hook.requests.map((r) => r.json()).filter((b) => b.delivery === "restored summary");
    await waitUntil(() => restored().length === 1, "the restored summary");
    expect(restored()[0].text.split("\n")[0]).toMatch(/^🟠 Restored after a restart: 1 problem still open \[/);
    expect(restored()[0].covers).toEqual(["Deployment/shop/api"]);
    await waitUntil(() => hook.requests.some((r) => r.json().action === "resolve"), "the resolve");
    expect(hook.requests.find((r) => r.json().action === "resolve")!.json().incidentId).toBe("Deployment/shop/web");
  });
});
