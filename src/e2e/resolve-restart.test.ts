import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useCleanup } from "../testing/cleanup.ts";
import { type CaptureServer, startCaptureServer, waitUntil } from "../testing/capture-server.ts";
import { crashPod, seedShop, startTestCluster, type TestCluster } from "../testing/cluster.ts";

/**
 * No resolve is lost across a restart (issue 19): a problem that ended while mon was down is resolved by the
 * next process, in the same conversation (Pro keeps its incidents in the state file).
 */
const track = useCleanup();

/**
 * Pro mon tells the crash loops of `crashing` (shop/web first), stops; while it is down shop/web's pod goes away
 * (its Deployment scaled to zero); a second process starts on the same state file and settles.
 */
async function webEndsWhileDown(
  hook: CaptureServer,
  crashing: readonly string[],
): Promise<{ first: TestCluster; second: TestCluster }> {
  const dataDir = mkdtempSync(join(tmpdir(), "mon-resolve-"));
  const first = await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { edition: "pro", dataDir });
  const { sim, clock } = first;
  seedShop(sim, clock.now());
  await first.settle();
  for (const [n, name] of crashing.entries()) {
    crashPod(sim, "shop", `${name}-abc12-p0`, 4, clock.now());
    await first.settle();
    await hook.waitFor(n + 1);
    await clock.advance(60_000);
  }
  await first.stopDaemon();
  sim.remove("v1", "Pod", "shop", "web-abc12-p0");
  const dep = sim.store.get(sim.typeOf("apps", "v1", "deployments"), "shop", "web");
  sim.apply({ ...dep, spec: { ...dep.spec, replicas: 0 } });
  const second = track(
    await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { edition: "pro", dataDir, sim, clock }),
  );
  await second.settle();
  return { first, second };
}

const resolved = (hook: CaptureServer) => hook.requests.find((r) => r.json().action === "resolve")?.json();

describe("resolves across restarts (issue 19)", () => {
  test("Pro: a crash-looping pod deleted while mon was down gets its resolve from the next process, with the announcement's dedup key", async () => {
    const hook = track(await startCaptureServer());
    const { second } = await webEndsWhileDown(hook, ["web"]);
    const announced = hook.requests[0]!.json();
    expect(announced).toMatchObject({ action: "announce", incidentId: "Deployment/shop/web" });
    await waitUntil(() => resolved(hook) !== undefined, "the resolve");
    expect(resolved(hook)).toMatchObject({ incidentId: "Deployment/shop/web", dedupKey: announced.dedupKey });
    // Nothing calls it "still open" first (issue 30): the restored summary waits for the first pass and names
    // only what is still failing — here nothing, so there is none.
    await second.daemon.sent();
    expect(hook.requests.map((r) => r.json().delivery)).not.toContain("restored summary");
  });

  test("Pro: of two problems open at a restart, the one that ended while mon was down is resolved, the other alone is named still open", async () => {
    const hook = track(await startCaptureServer());
    await webEndsWhileDown(hook, ["web", "api"]);
    const restored = () => hook.requests.map((r) => r.json()).filter((b) => b.delivery === "restored summary");
    await waitUntil(() => restored().length === 1, "the restored summary");
    expect(restored()[0].text.split("\n")[0]).toMatch(/^🟠 Restored after a restart: 1 problem still open \[/);
    expect(restored()[0].covers).toEqual(["Deployment/shop/api"]);
    await waitUntil(() => resolved(hook) !== undefined, "the resolve");
    expect(resolved(hook).incidentId).toBe("Deployment/shop/web");
  });
});
