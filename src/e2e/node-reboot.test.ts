import { describe, expect, test } from "bun:test";
import { rebootedEvent } from "../sim/scenarios/builders.ts";
import { startCaptureServer, waitUntil } from "../testing/capture-server.ts";
import { useCleanup } from "../testing/cleanup.ts";
import { crashPod, deploymentUnavailable, seedShop, seedWorkload, startTestCluster } from "../testing/cluster.ts";

/**
 * A node that rebooted (issue 41, item 2) through the real daemon: a reboot is a low-priority fact for the
 * digest; it does not take in a crash loop that began before it, and it does not say users lost a Service whose
 * pods on that node are ready.
 */
const track = useCleanup();

describe("a node reboot", () => {
  test("a crash loop from a rollout 4 minutes before is told as the Deployment's; the reboot goes to the digest, hurting no one", async () => {
    const hook = track(await startCaptureServer());
    const c = track(await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { cluster: "prod" }));
    seedShop(c.sim, c.clock.now());
    seedWorkload(c.sim, "batch", "nightly", ["n1"], c.clock.now());
    await c.settle();
    crashPod(c.sim, "batch", "nightly-abc12-p0", 4, c.clock.now());
    deploymentUnavailable(c.sim, "batch", "nightly", c.clock.now());
    for (let i = 0; i < 4; i++) {
      await c.clock.advance(60_000);
      await c.settle();
    }
    c.sim.apply(rebootedEvent("n1", c.clock.now(), "4abeb0e1-0000-4000-8000-000000000001"));
    for (let i = 0; i < 61; i++) {
      await c.clock.advance(60_000);
      await c.settle();
    }
    await waitUntil(() => hook.requests.some((r) => r.json().delivery === "digest"), "the digest");
    const told = hook.requests.map((r) => r.json());
    const announced = told.filter((m) => m.action === "announce" && m.delivery !== "digest");
    expect(announced.map((m) => [m.incidentId, m.title])).toEqual([
      [expect.stringContaining("Deployment/batch/nightly"), expect.stringContaining("CrashLoopBackOff")],
    ]);
    expect(announced[0].text).not.toContain("rebooted");
    const digest = told.find((m) => m.delivery === "digest");
    expect(digest?.text).toContain("node n1: NodeRebooted");
    expect(told.map((m) => m.text).join("\n")).not.toContain("users lose it");
  });
});
