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

/** WATCH requests of namespaces the simulator has finished answering (its apiserver_request_total counts them at their end). */
async function watchRequests(): Promise<number> {
  const metrics = await (
    await fetch(`${sim!.server.url}/metrics`, {
      headers: { authorization: `Bearer ${sim!.token}` },
      tls: { rejectUnauthorized: false },
    } as RequestInit)
  ).text();
  let n = 0;
  for (const [, count] of metrics.matchAll(
    /apiserver_request_total\{[^}]*resource="namespaces"[^}]*verb="WATCH"[^}]*\} (\d+)/g,
  ))
    n += Number(count);
  return n;
}

describe("silent watches (issue 40: bookmarks are not relied on)", () => {
  /** A Namespace informer on a simulator whose bookmarks and watch-cache timing follow the informer's fake clock. */
  async function silent(options: { checkDeadlineMs?: number; watchHeadersTimeoutMs?: number } = {}) {
    const clock = createFakeClock(Date.now());
    sim = await startSimulator({ timers: clock });
    const states: string[] = [];
    let since: number | undefined;
    let stalls = 0;
    let progress = 0;
    const cache = new Set<string>();
    informer = createInformer({
      connection: await connectKube({ kubeconfigText: sim.kubeconfig() }),
      kind: { kind: "Namespace", path: "/api/v1/namespaces" },
      clock,
      logger: createSilentLogger(),
      ...options,
      onStall: () => stalls++,
      onProgress: () => progress++,
      onEvent: (type, o) => (type === "DELETED" ? cache.delete(o.metadata.name) : cache.add(o.metadata.name)),
      onState: (state) => {
        states.push(state.state === "failing" ? `failing ${state.reason}` : state.state);
        if (state.state === "failing") since = state.since;
      },
    });
    informer.start();
    // Two timers on the fake clock: the simulator's bookmark timer, armed when it serves the watch, and the
    // informer's check timer, armed once the watch's headers arrived. Stepping before the second is armed would
    // move its first silent minute later than the test counts.
    await waitUntil(() => informer!.synced() && sim!.server.watchCount() === 1 && clock.pending() === 2, "the watch");
    /** One fake second at a time, letting each check (real requests) answer. */
    const step = async (seconds: number) => {
      for (let s = 0; s < seconds; s++) {
        await clock.advance(1_000);
        await new Promise((r) => setTimeout(r, 2));
      }
    };
    return { clock, states, stalls: () => stalls, progress: () => progress, since: () => since, cache, step };
  }

  test("a quiet kind gets no bookmark at all (as on kube-apiserver v1.32), yet its watch stays current for an hour: each silent minute is checked, nothing is stalled", async () => {
    const t = await silent();
    await t.step(3_600);
    expect(t.stalls()).toBe(0);
    expect(t.states).not.toContain("failing component_stalled");
    // Checks are short second watches: after an hour, still one watch open.
    await waitUntil(() => sim!.server.watchCount() === 1, "exactly one open watch");
    sim!.apply(configMapLike("after-an-hour"));
    await waitUntil(() => t.cache.has("after-an-hour"), "a change on the hour-old watch");
  }, 60_000);

  test("a watch that stopped delivering (a half-open connection) is found at its next check once the server has a change it missed: failing component_stalled since it was last known current, relisted, synced again", async () => {
    const t = await silent();
    await t.step(61);
    // The first check (a second watch) has answered: the quiet watch was current then.
    await waitUntil(async () => (await watchRequests()) >= 1 && sim!.server.watchCount() === 1, "the first check");
    const lastCurrent = t.clock.now() - 1_000;
    sim!.server.stallWatches("namespaces");
    await t.step(30);
    sim!.apply(configMapLike("missed"));
    await t.step(25);
    expect(t.stalls()).toBe(0);
    await t.step(10);
    await waitUntil(() => t.stalls() === 1, "the stall");
    expect(t.states).toContain("failing component_stalled");
    expect(t.since()).toBeGreaterThanOrEqual(lastCurrent - 1_000);
    expect(t.since()).toBeLessThanOrEqual(lastCurrent + 1_000);
    await waitUntil(() => t.cache.has("missed"), "the relist to bring what the silent watch missed");
    await waitUntil(() => t.states.at(-1) === "synced", "the kind synced again");
    sim!.apply(configMapLike("watched-again"));
    await waitUntil(() => t.cache.has("watched-again"), "a change on the reopened watch");
    expect(t.progress()).toBe(1);
  }, 60_000);

  test("a silent watch with nothing missed is not stalled: a stream that stopped delivering on a kind that did not change costs nothing", async () => {
    const t = await silent();
    sim!.server.stallWatches("namespaces");
    await t.step(600);
    expect(t.stalls()).toBe(0);
  }, 60_000);

  test("a proxy holding every stream: the check gets no answer within its deadline, the watch is stalled at the first silent minute", async () => {
    const t = await silent({ checkDeadlineMs: 1_000, watchHeadersTimeoutMs: 1_000 });
    sim!.server.holdWatches(true);
    await t.step(59);
    expect(t.stalls()).toBe(0);
    await t.step(1);
    await waitUntil(() => t.stalls() === 1, "the stall");
    expect(t.states).toContain("failing component_stalled");
    // The watch reopened meanwhile is held too (no headers): given up, retried with backoff until streams pass.
    sim!.server.holdWatches(false);
    sim!.apply(configMapLike("after-the-hold"));
    for (let s = 0; s < 120 && !t.cache.has("after-the-hold"); s++) {
      await t.step(1);
      await waitUntil(() => t.cache.has("after-the-hold"), "", 100).catch(() => {});
    }
    expect(t.cache.has("after-the-hold")).toBe(true);
  }, 60_000);

  test("a kind that changes keeps getting bookmarks every minute from its watch's start, so a quiet minute after a change needs no check", async () => {
    const t = await silent();
    sim!.apply(configMapLike("a-change"));
    await waitUntil(() => t.cache.has("a-change"), "the change");
    const before = sim!.server.watchCount();
    await t.step(600);
    expect(t.stalls()).toBe(0);
    expect(before).toBe(1);
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
