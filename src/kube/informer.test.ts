import { afterEach, describe, expect, test } from "bun:test";
import type { KubeObject } from "../model/inventory.ts";
import { createFakeClock } from "../runtime/clock.ts";
import { createSilentLogger } from "../runtime/logger.ts";
import { startSimulator, type Simulator } from "../sim/simulator.ts";
import { waitUntil } from "../testing/capture-server.ts";
import { connectKube } from "./connection.ts";
import { createInformer, type Informer, type InformerState } from "./informer.ts";

let sim: Simulator | undefined;
let informer: Informer | undefined;
afterEach(async () => {
  informer?.stop();
  await sim?.stop();
  sim = informer = undefined;
});

const configMapLike = (name: string) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } });

async function watchNamespaces(s: Simulator, clock = createFakeClock(Date.now())) {
  const events: { type: string; name: string }[] = [];
  const states: InformerState[] = [];
  const cache = new Map<string, KubeObject>();
  const connection = await connectKube({ kubeconfigText: s.kubeconfig() });
  informer = createInformer({
    connection,
    kind: { kind: "Namespace", path: "/api/v1/namespaces" },
    clock,
    logger: createSilentLogger(),
    onEvent(type, object) {
      events.push({ type, name: object.metadata.name });
      if (type === "DELETED") cache.delete(object.metadata.name);
      else cache.set(object.metadata.name, object);
    },
    onState: (state) => states.push(state),
    initialBackoffMs: 1_000,
  });
  informer.start();
  await waitUntil(() => informer!.synced(), "the first list");
  return { events, states, cache, clock };
}

describe("informer", () => {
  test("lists, then streams changes from the list's resourceVersion", async () => {
    sim = await startSimulator();
    const { events, cache } = await watchNamespaces(sim);
    expect(
      events
        .filter((e) => e.type === "ADDED")
        .map((e) => e.name)
        .sort(),
    ).toEqual(["default", "kube-node-lease", "kube-public", "kube-system"]);
    sim.apply(configMapLike("shop"));
    sim.remove("v1", "Namespace", undefined, "kube-public");
    await waitUntil(() => cache.has("shop") && !cache.has("kube-public"), "the watch events");
    expect(events.slice(4)).toEqual([
      { type: "ADDED", name: "shop" },
      { type: "DELETED", name: "kube-public" },
    ]);
  });

  test("a watch that ends is reopened from the last resourceVersion: nothing lost, nothing twice", async () => {
    sim = await startSimulator();
    const { events, cache } = await watchNamespaces(sim);
    await waitUntil(() => sim!.server.watchCount() === 1, "the watch to open");
    sim.server.dropWatches();
    sim.apply(configMapLike("while-disconnected"));
    await waitUntil(() => cache.has("while-disconnected"), "the change made while disconnected");
    sim.apply(configMapLike("after"));
    await waitUntil(() => cache.has("after"), "the next change");
    expect(events.filter((e) => e.name === "while-disconnected")).toEqual([
      { type: "ADDED", name: "while-disconnected" },
    ]);
    expect(events.filter((e) => e.name === "default")).toHaveLength(1);
  });

  test("410 Gone after compaction relists and emits only the differences", async () => {
    sim = await startSimulator();
    const { events, cache } = await watchNamespaces(sim);
    await waitUntil(() => sim!.server.watchCount() === 1, "the watch to open");
    sim.server.dropWatches();
    // Changes the informer cannot replay: history is compacted before it comes back.
    sim.apply(configMapLike("added-during-gap"));
    sim.remove("v1", "Namespace", undefined, "kube-public");
    sim.store.compact();
    await waitUntil(() => cache.has("added-during-gap") && !cache.has("kube-public"), "the relist");
    expect(events.filter((e) => e.name === "added-during-gap")).toEqual([{ type: "ADDED", name: "added-during-gap" }]);
    expect(events.filter((e) => e.name === "kube-public").map((e) => e.type)).toEqual(["ADDED", "DELETED"]);
    expect(events.filter((e) => e.name === "default")).toHaveLength(1);
  });

  test("a failing API server is reported and retried with backoff, and the informer recovers", async () => {
    sim = await startSimulator();
    const { states, cache, clock } = await watchNamespaces(sim);
    // A wrong token from now on: every request answers 401, which the informer does not retry by itself.
    const real = sim.token;
    sim.setTokens(["rotated"]);
    sim.server.dropWatches();
    await waitUntil(() => states.some((s) => s.state === "failing"), "a failing state");
    const failing = states.find((s) => s.state === "failing");
    // A rejected credential is a configuration to fix, named as such (spec 7.3), not a missing permission.
    expect(failing).toMatchObject({ state: "failing", reason: "source_configuration_failed", attempts: 1 });
    sim.setTokens([real]);
    sim.apply(configMapLike("after-recovery"));
    await clock.advance(1_200);
    await waitUntil(() => cache.has("after-recovery"), "recovery");
    expect(states[states.length - 1]).toEqual({ state: "synced" });
  });
});

describe("an informer never stops on its own", () => {
  test("a fault that ends its loop is reported (component_stopped) and the informer starts again", async () => {
    sim = await startSimulator();
    sim.failResource("namespaces", 500);
    const clock = createFakeClock(Date.now());
    const connection = await connectKube({ kubeconfigText: sim.kubeconfig() });
    const stops: string[] = [];
    const cache = new Set<string>();
    let faulty = true;
    informer = createInformer({
      connection,
      kind: { kind: "Namespace", path: "/api/v1/namespaces" },
      clock,
      logger: createSilentLogger(),
      onEvent: (_type, o) => cache.add(String(o.metadata?.name)),
      // A bug in the state callback: it throws on the first failure, which ends the informer's loop.
      onState: (state) => {
        if (state.state === "failing" && faulty) {
          faulty = false;
          throw new Error("callback fault");
        }
      },
      onUnexpectedStop: (why) => stops.push(why),
    });
    informer.start();
    await waitUntil(() => stops.length === 1, "the unexpected stop");
    expect(stops).toEqual(["callback fault"]);
    sim.failResource("namespaces", undefined);
    await clock.advance(1_000);
    await waitUntil(() => cache.has("default"), "the restarted informer's list");
  });
});

describe("stalled watches", () => {
  test("a watch with no data, not even a bookmark, for an explicit idle timeout is relisted and watched again", async () => {
    sim = await startSimulator({ bookmarkIntervalMs: 3_600_000 });
    const clock = createFakeClock(Date.now());
    const cache = new Set<string>();
    let stalls = 0;
    let progress = 0;
    informer = createInformer({
      connection: await connectKube({ kubeconfigText: sim.kubeconfig() }),
      kind: { kind: "Namespace", path: "/api/v1/namespaces" },
      clock,
      logger: createSilentLogger(),
      idleTimeoutMs: 180_000,
      onStall: () => stalls++,
      onProgress: () => progress++,
      onEvent: (type, o) => (type === "DELETED" ? cache.delete(o.metadata.name) : cache.add(o.metadata.name)),
      onState: () => {},
    });
    informer.start();
    // The idle timer is armed once the watch's headers arrived (the only timer this informer has).
    await waitUntil(
      () => informer!.synced() && sim!.server.watchCount() === 1 && clock.nextAt() !== undefined,
      "the watch",
    );
    await clock.advance(179_000);
    expect(stalls).toBe(0);
    await clock.advance(1_000);
    // Confirmed in real time (nothing sent meanwhile is still unread), then counted.
    await waitUntil(() => stalls === 1, "the stall");
    expect(progress).toBe(0);
    sim.apply(configMapLike("after-stall"));
    await waitUntil(() => cache.has("after-stall"), "a change after the stall (relisted or watched)");
    sim.apply(configMapLike("watched-again"));
    await waitUntil(() => cache.has("watched-again"), "a change on the reopened watch");
    // Data again: the stall is over, said once.
    expect(progress).toBe(1);
    await waitUntil(() => sim!.server.watchCount() === 1, "exactly one open watch");
  });
});

describe("the bookmark rhythm (issue 30)", () => {
  /** A Namespace informer on a simulator whose bookmarks (every `every` ms) follow the informer's fake clock. */
  async function onRhythm(every: number) {
    const clock = createFakeClock(Date.now());
    sim = await startSimulator({ timers: clock, bookmarkIntervalMs: every });
    const states: string[] = [];
    let since: number | undefined;
    let stalls = 0;
    const cache = new Set<string>();
    informer = createInformer({
      connection: await connectKube({ kubeconfigText: sim.kubeconfig() }),
      kind: { kind: "Namespace", path: "/api/v1/namespaces" },
      clock,
      logger: createSilentLogger(),
      onStall: () => stalls++,
      onEvent: (_t, o) => cache.add(o.metadata.name),
      onState: (state) => {
        states.push(state.state === "failing" ? `failing ${state.reason}` : state.state);
        if (state.state === "failing") since = state.since;
      },
    });
    informer.start();
    await waitUntil(() => informer!.synced() && sim!.server.watchCount() === 1, "the watch");
    const step = async (seconds: number) => {
      for (let s = 0; s < seconds; s++) {
        await clock.advance(1_000);
        await new Promise((r) => setTimeout(r, 2));
      }
    };
    return { clock, states, stalls: () => stalls, since: () => since, cache, step };
  }

  test("a silent watch is noticed 1.5 bookmark intervals (90 s) after its last data: failing component_stalled since then, relisted, synced again", async () => {
    const t = await onRhythm(60_000);
    await t.step(61); // a bookmark came at 60 s
    const lastData = t.clock.now() - 1_000;
    sim!.server.stallWatches("namespaces");
    sim!.apply(configMapLike("missed"));
    await t.step(88);
    expect(t.stalls()).toBe(0);
    await t.step(2);
    await waitUntil(() => t.stalls() === 1, "the stall");
    expect(t.states).toContain("failing component_stalled");
    expect(t.since()).toBeGreaterThanOrEqual(lastData - 1_000);
    expect(t.since()).toBeLessThanOrEqual(lastData);
    await waitUntil(() => t.cache.has("missed"), "the relist to bring what the silent watch missed");
    await waitUntil(() => t.states.at(-1) === "synced", "the kind synced again");
  });

  test("bookmarks every 60 s keep a quiet watch alive for an hour; a slower rhythm seen on the watch (80 s) is learned, not taken for a stall", async () => {
    const quiet = await onRhythm(60_000);
    await quiet.step(3_600);
    expect(quiet.stalls()).toBe(0);
    informer?.stop();
    await sim?.stop();
    const slow = await onRhythm(80_000);
    await slow.step(600);
    expect(slow.stalls()).toBe(0);
  }, 60_000);
});

describe("paginated lists (client-go's pager)", () => {
  test("1,200 objects are listed 500 a page: three LIST requests, every object once, then the watch from the snapshot", async () => {
    sim = await startSimulator();
    for (let i = 0; i < 1_196; i++) sim.apply(configMapLike(`ns-${i}`));
    const { events, cache } = await watchNamespaces(sim);
    expect(cache.size).toBe(1_200); // with default, kube-system, kube-public, kube-node-lease
    expect(new Set(events.map((e) => e.name)).size).toBe(events.length);
    const metrics = await (
      await fetch(`${sim.server.url}/metrics`, {
        headers: { authorization: `Bearer ${sim.token}` },
        tls: { rejectUnauthorized: false },
      } as RequestInit)
    ).text();
    expect(metrics).toMatch(/apiserver_request_total\{code="200"[^}]*resource="namespaces"[^}]*verb="LIST"[^}]*\} 3\n/);
    sim.apply(configMapLike("after-list"));
    await waitUntil(() => cache.has("after-list"), "a change after the paginated list");
  });
});
