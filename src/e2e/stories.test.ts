import { describe, expect, test } from "bun:test";
import { runningStatus } from "../sim/scenarios/builders.ts";
import { useCleanup } from "../testing/cleanup.ts";
import { startCaptureServer } from "../testing/capture-server.ts";
import { crashPod, seedShop, startTestCluster } from "../testing/cluster.ts";

/** The cluster stories of the pure-core suite (src/app/stories.test.ts), told end to end by the daemon. */
const track = useCleanup();

const MIN = 60_000;

describe("stories end to end: the daemon against the simulator, told to a webhook", () => {
  test("a Secret deleted under two Deployments: one incident naming the Secret", async () => {
    const hook = track(await startCaptureServer());
    const cluster = track(await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { cluster: "prod" }));
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    sim.apply({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { namespace: "shop", name: "db-creds" },
      type: "Opaque",
      data: { password: "aHVudGVyMg==" },
    });
    for (const name of ["api-abc12-p0", "web-abc12-p0"]) {
      const pod = sim.store.get(sim.typeOf("", "v1", "pods"), "shop", name);
      sim.apply({
        ...pod,
        spec: {
          ...pod.spec,
          containers: pod.spec.containers.map((c: Record<string, unknown>) => ({
            ...c,
            envFrom: [{ secretRef: { name: "db-creds" } }],
          })),
        },
      });
    }
    await cluster.settle();
    sim.remove("v1", "Secret", "shop", "db-creds");
    for (const [name, container] of [
      ["api-abc12-p0", "api"],
      ["web-abc12-p0", "web"],
    ] as const) {
      sim.patchStatus("v1", "Pod", "shop", name, {
        phase: "Pending",
        containerStatuses: [
          {
            name: container,
            image: `ghcr.io/shop/${container}:1.0`,
            imageID: "",
            ready: false,
            started: false,
            restartCount: 0,
            state: { waiting: { reason: "CreateContainerConfigError", message: 'secret "db-creds" not found' } },
          },
        ],
      });
    }
    await cluster.settle();
    await clock.advance(2 * MIN);
    await cluster.settle();
    const [told] = await hook.waitFor(1);
    expect(told!.json()).toMatchObject({
      action: "announce",
      incidentId: "Secret/shop/db-creds",
      reason: "SecretMissing",
      root: { kind: "Secret", namespace: "shop", name: "db-creds" },
    });
    expect(told!.json().text).toStartWith("🟠 secret shop/db-creds: SecretMissing, 2 pods affected [prod]");
    expect(hook.requests).toHaveLength(1);
  });

  test("a rolling update (new pod pulling its image, old one terminating gracefully): no message", async () => {
    const hook = track(await startCaptureServer());
    const cluster = track(await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { cluster: "prod" }));
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    await cluster.settle();
    const old = sim.store.get(sim.typeOf("", "v1", "pods"), "shop", "web-abc12-p0");
    sim.apply({
      ...old,
      metadata: { ...old.metadata, name: "web-def34-p0", uid: undefined, resourceVersion: undefined },
      status: {
        phase: "Pending",
        containerStatuses: [
          {
            name: "web",
            image: "ghcr.io/shop/web:1.1",
            imageID: "",
            ready: false,
            started: false,
            restartCount: 0,
            state: { waiting: { reason: "ContainerCreating" } },
          },
        ],
      },
    });
    sim.apply({
      ...old,
      metadata: {
        ...old.metadata,
        deletionTimestamp: new Date(clock.now()).toISOString(),
        deletionGracePeriodSeconds: 30,
      },
    });
    await cluster.settle();
    await clock.advance(MIN);
    await cluster.settle();
    expect(cluster.daemon.delivery.depth("webhook")).toBe(0);
    expect(hook.requests).toHaveLength(0);
  });

  test("a crash every 10 minutes: told, told again as failing again, then stated once with its rhythm", async () => {
    const hook = track(await startCaptureServer());
    const cluster = track(await startTestCluster({ webhook: { url: `${hook.url}/mon` } }, { cluster: "prod" }));
    const { sim, clock } = cluster;
    seedShop(sim, clock.now());
    await cluster.settle();
    for (let round = 0; round < 3; round++) {
      crashPod(sim, "shop", "api-abc12-p0", 3 + round, clock.now());
      await cluster.settle();
      await clock.advance(5 * MIN);
      sim.patchStatus(
        "v1",
        "Pod",
        "shop",
        "api-abc12-p0",
        runningStatus("api", "ghcr.io/shop/api:1.0", new Date(clock.now()).toISOString(), 3 + round),
      );
      await cluster.settle();
      await clock.advance(5 * MIN);
    }
    const told = (await hook.waitFor(6)).map((r) => r.json());
    expect(told.map((b) => b.action)).toEqual(["announce", "resolve", "announce", "resolve", "announce", "resolve"]);
    expect(told[2].news).toEqual(["failing again 5 minutes after it resolved"]);
    expect(told[4].news).toEqual([
      "failing again 5 minutes after it resolved",
      "recurring: fails every 10 minutes; further recurrences go to the low-priority digest",
    ]);
    expect(new Set(told.map((b) => b.dedupKey)).size).toBe(1);
  });
});
