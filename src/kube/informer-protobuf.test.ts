import { afterEach, describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { KubeObject } from "../model/inventory.ts";
import { createFakeClock } from "../runtime/clock.ts";
import { createSilentLogger } from "../runtime/logger.ts";
import { deployment, runningPod } from "../sim/scenarios/builders.ts";
import { startSimulator, type Simulator } from "../sim/simulator.ts";
import { waitUntil } from "../testing/capture-server.ts";
import { connectKube } from "./connection.ts";
import { createInformer, type Informer } from "./informer.ts";
import { project } from "./project.ts";
import { PLANS, protobufShape } from "./protobuf/plans.ts";

/**
 * The same informer in both encodings (issue 55): listing and watching pods in protobuf, decoded straight into
 * their projection, keeps the very objects JSON parsed and projected keeps, through a list and any burst of
 * changes, and says so event by event.
 */
let sim: Simulator | undefined;
const informers: Informer[] = [];
afterEach(async () => {
  for (const i of informers.splice(0)) i.stop();
  await sim?.stop();
  sim = undefined;
});

async function cacheOf(s: Simulator, protobuf: boolean) {
  const cache = new Map<string, KubeObject>();
  const events: string[] = [];
  const undecodable: string[] = [];
  const connection = await connectKube({ kubeconfigText: s.kubeconfig() });
  const shape = protobufShape("/api/v1/pods", "Pod", false);
  const informer = createInformer({
    connection,
    kind: { kind: "Pod", path: "/api/v1/pods" },
    clock: createFakeClock(Date.now()),
    logger: createSilentLogger(),
    ...(protobuf && shape
      ? { protobuf: { plans: PLANS, shape, projected: true, onUndecodable: (e) => undecodable.push(e.message) } }
      : {}),
    onEvent(type, object) {
      const key = `${object.metadata.namespace}/${object.metadata.name}`;
      events.push(`${type} ${key}`);
      if (type === "DELETED") cache.delete(key);
      else cache.set(key, withoutNulls(project("Pod", object)) as KubeObject);
    },
    onState: () => {},
    pageSize: 3,
  });
  informers.push(informer);
  informer.start();
  await waitUntil(() => informer.synced(), "the first list");
  return { cache, events, undecodable, informer };
}

/**
 * The simulator's JSON leaves out what the real API server writes as `null` or `{}` (a zero time or an empty
 * struct that is no pointer: `lastProbeTime: null`, `resources: {}`); protobuf decodes them as the real server's
 * JSON has them. Compared without them here; the real control plane's test compares the encodings exactly.
 */
function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.entries(v)
        .map(([k, x]) => [k, withoutNulls(x)] as const)
        .filter(([, x]) => x !== null && !(typeof x === "object" && !Array.isArray(x) && Object.keys(x).length === 0)),
    );
  return v;
}

/** Namespace shop with Deployment api and its ReplicaSet (api-abc12); returns the ReplicaSet, its pods' owner. */
function seedApi(s: Simulator): KubeObject {
  s.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } });
  const made = deployment("shop", "api", 1, "ghcr.io/shop/api:1.0", "abc12");
  s.apply(made.deployment);
  s.apply(made.replicaSet);
  return s.store.get(s.typeOf("apps", "v1", "replicasets"), "shop", "api-abc12") as KubeObject;
}

describe("an informer in protobuf (issue 55)", () => {
  test("a list in pages and any burst of changes: the same objects and the same events as in JSON", async () => {
    sim = await startSimulator();
    const replicaSet = seedApi(sim);
    for (let i = 0; i < 7; i++) sim.apply(runningPod(replicaSet, `p${i}`, "n1", Date.now() - 60_000));
    const json = await cacheOf(sim, false);
    const proto = await cacheOf(sim, true);
    expect([...proto.cache.entries()]).toEqual([...json.cache.entries()]);
    const s = sim;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat({ max: 9 }), fc.constantFrom("restart", "delete", "label")), { maxLength: 12 }),
        async (changes) => {
          for (const [i, change] of changes) {
            const name = `api-abc12-p${i}`;
            if (change === "delete") s.remove("v1", "Pod", "shop", name);
            else {
              const pod = runningPod(replicaSet, `p${i}`, "n1", Date.now() - 60_000);
              if (change === "label") pod.metadata.labels = { ...pod.metadata.labels, touched: String(Date.now()) };
              else pod.status.containerStatuses[0].restartCount = i + 1;
              s.apply(pod);
            }
          }
          const marker = runningPod(replicaSet, `m${Date.now()}`, "n1", Date.now());
          s.apply(marker);
          const key = `shop/${marker.metadata.name}`;
          await waitUntil(() => json.cache.has(key) && proto.cache.has(key), "the burst in both caches");
          expect([...proto.cache.entries()]).toEqual([...json.cache.entries()]);
          expect(proto.events).toEqual(json.events);
        },
      ),
      { numRuns: 10 },
    );
  });

  test("a frame that does not decode is set aside and said; the frames after it are read, the watch goes on, the object back with its next change", async () => {
    sim = await startSimulator();
    const replicaSet = seedApi(sim);
    const proto = await cacheOf(sim, true);
    sim.server.garbleProtobuf("pods", 1);
    sim.apply(runningPod(replicaSet, "odd", "n1", Date.now()));
    sim.apply(runningPod(replicaSet, "next", "n1", Date.now()));
    await waitUntil(() => proto.cache.has("shop/api-abc12-next"), "the frame after the odd one");
    // The simulator writes a pod and then its status: the first frame was the odd one, the second brings it.
    expect(proto.events.filter((e) => e.endsWith("api-abc12-odd"))).toEqual(["MODIFIED shop/api-abc12-odd"]);
    expect(proto.undecodable).toEqual([expect.stringMatching(/past the end at byte \d+$/)]);
    expect(proto.informer.synced()).toBe(true);
  });

  test("a list that is not protobuf at all is said once, and the kind is read as JSON from then on: it syncs, nothing is lost", async () => {
    sim = await startSimulator();
    const replicaSet = seedApi(sim);
    sim.apply(runningPod(replicaSet, "p0", "n1", Date.now()));
    sim.server.garbleProtobuf("pods", 1);
    const proto = await cacheOf(sim, true);
    expect(proto.cache.has("shop/api-abc12-p0")).toBe(true);
    expect(proto.undecodable).toEqual([expect.stringMatching(/not a Kubernetes protobuf envelope at byte \d+$/)]);
    sim.apply(runningPod(replicaSet, "p1", "n1", Date.now()));
    await waitUntil(() => proto.cache.has("shop/api-abc12-p1"), "a change after it, read as JSON");
  });
});
