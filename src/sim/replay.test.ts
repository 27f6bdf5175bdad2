import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { createFakeClock } from "../runtime/clock.ts";
import { replayTimeline } from "./replay.ts";
import { startSimulator, type Simulator } from "./simulator.ts";
import { loadTimeline, TIMELINES_DIR } from "./timeline.ts";

const SCENARIOS = readdirSync(TIMELINES_DIR, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

describe("recorded timelines (real v1.32 control plane)", () => {
  test("the repository carries the seven recorded scenarios", () => {
    expect(SCENARIOS).toEqual([
      "configmap_missing",
      "job_backoff",
      "node_lost_daemonset",
      "readiness_flap",
      "rollout_surge",
      "scale_to_zero_and_back",
      "statefulset_crash",
    ]);
  });

  for (const name of SCENARIOS) {
    test(`${name}: t=0 is found from the writers' own timestamps, before every event and close to the first`, () => {
      const timeline = loadTimeline(join(TIMELINES_DIR, name));
      expect(timeline.events.length).toBeGreaterThan(0);
      for (const e of timeline.events) {
        const written = Math.max(
          ...(e.object.metadata?.managedFields ?? []).map((m: { time: string }) => Date.parse(m.time)),
        );
        // A write's time (whole seconds) is never after its event arrived.
        if (Number.isFinite(written)) expect(written).toBeLessThanOrEqual(timeline.startMs + e.t * 1000 + 1);
      }
      // …and at least one write is within its second of the event it caused: t=0 is not found too early.
      const gaps = timeline.events
        .filter((e) => e.object.metadata?.managedFields?.length)
        .map(
          (e) =>
            timeline.startMs +
            e.t * 1000 -
            Math.max(...e.object.metadata.managedFields.map((m: { time: string }) => Date.parse(m.time))),
        );
      expect(Math.min(...gaps)).toBeLessThan(1_000);
    });
  }

  test("a missing directory is one clear error naming the file", () => {
    expect(() => loadTimeline("/nonexistent/timeline")).toThrow(
      "timeline /nonexistent/timeline: cannot read initial.json (ENOENT)",
    );
  });
});

describe("replay through the simulator's list and watch", () => {
  let sim: Simulator;
  const clock = createFakeClock(Date.parse("2030-01-01T00:00:00Z"));
  beforeAll(async () => {
    sim = await startSimulator({ now: () => clock.now() });
  });
  afterAll(() => sim.stop());

  test("statefulset_crash: the recorded objects at t=0, each event at its time, timestamps moved by whole seconds", async () => {
    const timeline = loadTimeline(join(TIMELINES_DIR, "statefulset_crash"));
    const replay = replayTimeline(sim, timeline, clock);
    const pods = () => sim.store.list(sim.typeOf("", "v1", "pods"), "tl-statefulset-crash");
    const pod = (name: string) => pods().find((p) => p.metadata.name === name)!;
    const ready = (name: string) =>
      pod(name).status.conditions.find((c: { type: string }) => c.type === "Ready").status;
    expect(
      pods()
        .map((p) => p.metadata.name)
        .sort(),
    ).toEqual(["ledger-0", "ledger-1", "ledger-2"]);
    expect(ready("ledger-1")).toBe("True");
    // Owner references keep the recorded uids: the StatefulSet is the pods' controller.
    const set = sim.store.get(sim.typeOf("apps", "v1", "statefulsets"), "tl-statefulset-crash", "ledger");
    expect(pod("ledger-1").metadata.ownerReferences[0].uid).toBe(set.metadata.uid);
    // Timestamps are moved by the same offset: the pod was created before the replay started, as recorded.
    const recordedCreated = timeline.initial.find((o) => o.metadata.name === "ledger-1")!.metadata.creationTimestamp;
    expect(Date.parse(pod("ledger-1").metadata.creationTimestamp) - replay.zeroMs).toBe(
      Date.parse(recordedCreated) - timeline.startMs,
    );
    const to = (t: number) => clock.advance(replay.zeroMs + t * 1000 - clock.now());
    await to(9.9);
    expect(ready("ledger-1")).toBe("True");
    await to(10.2); // the crash and Ready=False arrived at t=10.0
    expect(ready("ledger-1")).toBe("False");
    expect(
      pod("ledger-1").status.containerStatuses[0].lastState.terminated ??
        pod("ledger-1").status.containerStatuses[0].state.terminated,
    ).toMatchObject({ exitCode: 2 });
    await to(timeline.lengthSeconds);
    await replay.done;
    expect(ready("ledger-1")).toBe("True");
    expect(replay.served()).toBe(timeline.lengthSeconds);
  });
});
