import { createFakeClock } from "../runtime/clock.ts";
import { readyNode } from "../sim/scenarios/builders.ts";
import { startSimulator } from "../sim/simulator.ts";
import type { KubeObject } from "../sim/store.ts";
import { NS, simStoryCluster, type Story } from "../sim/stories/index.ts";
import type { Timeline, TimelineEvent } from "../sim/timeline.ts";

/** The kinds a story's timeline holds: every kind the simulator's controllers write, and what stories apply. */
const KINDS = new Set([
  "Pod",
  "Node",
  "Service",
  "Namespace",
  "ConfigMap",
  "Secret",
  "PersistentVolumeClaim",
  "PersistentVolume",
  "Event",
  "EndpointSlice",
  "Deployment",
  "ReplicaSet",
  "StatefulSet",
  "DaemonSet",
  "Job",
  "CronJob",
  "Lease",
]);

/**
 * A story of the catalogue (src/sim/stories) told to the simulator's controllers on a fake clock, written down
 * as a watch-event timeline (src/sim/timeline.ts): the objects at t=0 and every change seen by looking at the
 * store each second, so `mon replay`'s engine (app/commands/replay.ts) can run the story without a daemon.
 */
export async function storyTimeline(story: Story): Promise<Timeline> {
  const clock = createFakeClock(Date.UTC(2026, 5, 1, 9));
  const sim = await startSimulator({ now: () => clock.now(), controllers: clock });
  try {
    const joined = clock.now() + 10_000 - (story.youngNodes ? 300_000 : 86_400_000);
    for (let i = 1; i <= story.nodes; i++) sim.apply(readyNode(`worker-${i}`, joined));
    sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
    await clock.advance(10_000);
    const startMs = clock.now();
    const cluster = simStoryCluster(sim, { zeroMs: startMs, seconds: story.steps.map((s) => s.t) });
    for (const step of story.steps) clock.setTimer(() => step.run(cluster), step.t * 1000);
    const types = sim.registry.all().filter((t) => KINDS.has(t.kind));
    const snapshot = () => {
      const out = new Map<string, KubeObject>();
      for (const type of types)
        for (const [key, o] of sim.store.publishedObjects(type))
          out.set(`${type.kind}/${key}`, structuredClone({ ...o, kind: type.kind }));
      return out;
    };
    let seen = snapshot();
    const initial = [...seen.values()];
    const events: TimelineEvent[] = [];
    for (let t = 1; t <= story.lengthSeconds; t++) {
      await clock.advance(1_000);
      const now = snapshot();
      for (const [key, o] of now) {
        const before = seen.get(key);
        if (!before) events.push({ t, type: "ADDED", object: o });
        else if (before.metadata.resourceVersion !== o.metadata.resourceVersion)
          events.push({ t, type: "MODIFIED", object: o });
      }
      for (const [key, o] of seen) if (!now.has(key)) events.push({ t, type: "DELETED", object: o });
      seen = now;
    }
    // The simulator serves every Secret the story writes: the timeline holds them all.
    return { name: story.name, initial, events, startMs, lengthSeconds: story.lengthSeconds, secretsRecorded: true };
  } finally {
    await sim.stop();
  }
}
