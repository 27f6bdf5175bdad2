import { describe, expect, test } from "bun:test";
import { nodeReady, runningStatus } from "../sim/scenarios/builders.ts";
import { startCaptureServer } from "../testing/capture-server.ts";
import { useCleanup } from "../testing/cleanup.ts";
import { crashPod, deliverySettled, seedShop, seedWorkload, startTestCluster } from "../testing/cluster.ts";
import { startCluster } from "../testing/replay.ts";
import { threadsOf } from "../testing/timing/conversation.ts";
import { deployment } from "../sim/stories/story.ts";

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

  test("2. unrelated crash loops printing a line every crash prints are two incidents, not one 'shared error'", async () => {
    const run = track(await startCluster({ nodes: 2 }));
    run.sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "default" } });
    // Both print the simulator's default output: "Error: the process exited with status 1".
    run.sim.apply(deployment("a", "registry.example/a:crash", 1));
    run.sim.apply({ ...deployment("b", "registry.example/b:crash", 1), metadata: { namespace: "default", name: "b" } });
    await run.runTo(300, 1_000);
    const threads = [...threadsOf(run.told()).keys()].sort();
    expect(threads).toEqual(["Deployment/default/b", "Deployment/shop/a"]);
    for (const m of run.told()) expect(m.text).not.toContain("#");
  }, 120_000);

  test("3. a resolve says how long the failure lasted from its onset, and that it was told after its hold", async () => {
    const hook = track(await startCaptureServer());
    const cluster = track(await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { cluster: "prod" }));
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    await cluster.settle();
    const began = clock.now();
    sim.patchStatus("v1", "Pod", "shop", "web-abc12-p0", {
      phase: "Pending",
      startTime: new Date(began).toISOString(),
      containerStatuses: [
        {
          name: "web",
          image: "ghcr.io/shop/web:1.1",
          imageID: "",
          ready: false,
          restartCount: 0,
          state: { waiting: { reason: "ImagePullBackOff", message: 'Back-off pulling image "ghcr.io/shop/web:1.1"' } },
        },
      ],
    });
    await cluster.settle();
    await clock.advance(120_000);
    await cluster.settle();
    await clock.advance(30_000);
    sim.patchStatus(
      "v1",
      "Pod",
      "shop",
      "web-abc12-p0",
      runningStatus("web", "ghcr.io/shop/web:1.1", new Date(clock.now()).toISOString(), 0),
    );
    await cluster.settle();
    await deliverySettled(cluster.daemon);
    const [announce, resolve] = hook.requests.map((r) => r.json());
    expect(announce).toMatchObject({ action: "announce", reason: "ImagePullBackOff" });
    expect(resolve.text).toContain(
      "Was blamed on deployment shop/web (ImagePullBackOff); open 2 min 30 s; announced 2 min after it began, after its 2 min hold.",
    );
  });

  test("4. a template that leaves out the status emoji still sends a message that starts with it (spec 3.2)", async () => {
    const lines: string[] = [];
    const cluster = track(
      await startTestCluster(
        { stdout: { templates: { CrashLoopBackOff: "crash! {{.Message}}" } } },
        { cluster: "prod", edition: "pro", stdout: (text) => lines.push(text) },
      ),
    );
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    await cluster.settle();
    crashPod(sim, "shop", "web-abc12-p0", 3, clock.now());
    await cluster.settle();
    await deliverySettled(cluster.daemon);
    const told = lines.filter((l) => l.includes("crash!"));
    expect(told).toHaveLength(1);
    expect(told[0]).toStartWith("🟠 crash! deployment shop/web: CrashLoopBackOff in 1 pod [prod]");
  });
});
