import { afterEach, describe, expect, test } from "bun:test";
import type { KubeObject } from "../model/inventory.ts";
import { createFakeClock } from "../runtime/clock.ts";
import { createSilentLogger } from "../runtime/logger.ts";
import { startSimulator, type Simulator } from "../sim/simulator.ts";
import { waitUntil } from "../testing/capture-server.ts";
import { connectKube } from "./connection.ts";
import { createClusterWatcher, type ClusterWatcher, type WatcherHooks } from "./watcher.ts";

let sim: Simulator | undefined;
let watcher: ClusterWatcher | undefined;
afterEach(async () => {
  watcher?.stop();
  await sim?.stop();
  sim = watcher = undefined;
});

async function watch(hooks: WatcherHooks, options: { syncTimeoutMs?: number } = {}) {
  const clock = createFakeClock(Date.now());
  watcher = createClusterWatcher({
    connection: await connectKube({ kubeconfigText: sim!.kubeconfig() }),
    clock,
    logger: createSilentLogger(),
    watchSecrets: true,
    resyncMs: 0,
    hooks,
    ...options,
  });
  watcher.start();
  return clock;
}

describe("cluster watcher", () => {
  test("a handler that throws is recovered and reported; later events still arrive", async () => {
    sim = await startSimulator();
    const seen: string[] = [];
    const failures: string[] = [];
    await watch({
      onEvent: (kind, _type, object: KubeObject) => {
        if (kind !== "ConfigMap") return;
        if (object.metadata.name === "boom") throw new Error("handler bug");
        seen.push(object.metadata.name);
      },
      onHandlerFailure: (kind) => failures.push(kind),
    });
    await waitUntil(() => watcher!.requiredSynced(), "sync");
    sim.apply({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "boom", namespace: "default" } });
    sim.apply({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "after", namespace: "default" } });
    await waitUntil(() => seen.includes("after"), "the event after the failure");
    expect(failures).toEqual(["ConfigMap"]);
  });

  test("a kind whose cache does not sync in time is sync_timeout in coverage; it recovers when the server heals", async () => {
    sim = await startSimulator();
    sim.failResource("batch/cronjobs", 500);
    const states: string[] = [];
    const clock = await watch(
      { onKindState: (t, state) => t.resource === "cronjobs" && states.push(state) },
      { syncTimeoutMs: 60_000 },
    );
    await waitUntil(() => states.includes("failing"), "the failing list");
    // Every other kind synced first, so the minute that passes times out only the failing one.
    await waitUntil(
      () => [...watcher!.states()].filter(([k]) => !k.endsWith("cronjobs")).every(([, s]) => s === "synced"),
      "every other kind to sync",
    );
    await clock.advance(60_000);
    await waitUntil(() => states.includes("sync_timeout"), "the timeout");
    expect(watcher!.coverage()).toEqual([{ kind: "batch/cronjobs", reason: "sync_timeout" }]);
    expect(watcher!.requiredSynced()).toBe(true);
    // Its retries go on failing: it stays sync_timeout, in coverage, through each of them.
    const timedOut = states.length;
    await waitUntil(async () => {
      await clock.advance(5_000);
      return states.length >= timedOut + 2;
    }, "two more failed retries");
    expect(states.slice(timedOut)).not.toContain("failing");
    expect(watcher!.coverage()).toEqual([{ kind: "batch/cronjobs", reason: "sync_timeout" }]);
    sim.failResource("batch/cronjobs", undefined);
    // A retry that was on the wire when the server healed schedules its next wait on the fake clock only once
    // its answer arrives: move the clock until the informer is back.
    await waitUntil(async () => {
      await clock.advance(5_000);
      return states[states.length - 1] === "synced";
    }, "recovery");
    expect(watcher!.coverage()).toEqual([]);
  });

  test("a required kind that never syncs keeps mon unready", async () => {
    sim = await startSimulator();
    sim.failResource("pods", 503);
    await watch({});
    await waitUntil(
      () =>
        [...watcher!.states()].filter(([k]) => k !== "pods").every(([, s]) => s === "synced") &&
        watcher!.states().size > 10,
      "every other kind to sync",
    );
    expect(watcher!.states().get("pods")).toBe("failing");
    expect(watcher!.requiredSynced()).toBe(false);
  });
});
