import { describe, expect, test } from "bun:test";
import { RECORDED_TIMING } from "../sim/controllers/index.ts";
import { storyNamed } from "../sim/stories/index.ts";
import { startTimedStory, type Told } from "../testing/replay.ts";
import { RECORDED_STORY_TIMING, type StoryTiming } from "../testing/timing/run.ts";

/**
 * The four failures issue 28 observed, on the timing it observed them with, through the real daemon against
 * the simulator's controllers: each a story of src/sim/stories, with the exact messages a platform engineer
 * should get. (The property over generated timings is src/e2e/timing-invariance.test.ts.)
 */

/** Each story replays up to 25 minutes of cluster time; a fast crash loop on a busy machine takes a while. */
const LONG = 300_000;

async function tell(name: string, timing: StoryTiming): Promise<Told[]> {
  const story = storyNamed(name);
  if (!story) throw new Error(name);
  const run = await startTimedStory(story, timing);
  try {
    await run.runTo(story.lengthSeconds, 1_000);
    return run.told();
  } finally {
    await run.stop();
  }
}

/** `action incident reason | headline // the line after it` of each message. */
const lines = (told: readonly Told[]) =>
  told.map((m) => `${m.action} ${m.incidentId} ${m.reason} | ${m.text.split("\n").slice(0, 2).join(" // ")}`);

describe("issue 28: what was observed, on the timing it was observed with", () => {
  test(
    "1. a crash loop with a short back-off (2 s, 2 s, 2 s, then 15 s) on young nodes: one announcement naming the crash, one resolve when fixed",
    async () => {
      const told = await tell("crash-young-nodes", {
        ...RECORDED_STORY_TIMING,
        controllers: { ...RECORDED_TIMING, crashBackOffMs: [2_000, 2_000, 2_000, 15_000] },
      });
      expect(lines(told)).toEqual([
        "announce Deployment/shop/api CrashLoopBackOff | 🟠 deployment shop/api: CrashLoopBackOff in 2 pods [replay] // high · CrashLoopBackOff · 3 findings",
        "resolve Deployment/shop/api CrashLoopBackOff | ✅ Resolved: deployment shop/api [replay] // Now: 2/2 replicas available.",
      ]);
      // Told once the young-node grace ended, resolved after the rollout at 720 s, not between two crashes.
      expect(told[1]!.t).toBeGreaterThan(720);
    },
    LONG,
  );

  test(
    "2. a node back with its pods a moment from ready and the EndpointSlice a second behind: only the node, resolved once its pods run",
    async () => {
      const told = await tell("node-back-slices-lag", {
        ...RECORDED_STORY_TIMING,
        controllers: { ...RECORDED_TIMING, endpointSliceLagMs: 1_000 },
      });
      expect(lines(told)).toEqual([
        "announce Node//worker-1 NodeLost | 🟠 node worker-1: unreachable, 2 pods on it down [replay] // high · NodeLost · 3 findings",
        "resolve Node//worker-1 NodeLost | ✅ Resolved: node worker-1 [replay] // Now: node Ready again; 2 pods running.",
      ]);
      // The node is Ready again at 300 s; its pods 3.3 s later; their EndpointSlices a second after that.
      expect(told[1]!.t).toBeGreaterThan(304);
    },
    LONG,
  );

  test(
    "3a. a ConfigMap created under pods waiting to mount it: their FailedMount events and the Deployments catching up are no new problems",
    async () => {
      expect(lines(await tell("configmap-volume-appears", RECORDED_STORY_TIMING))).toEqual([
        "announce ConfigMap/shop/api-config ConfigMapMissing | 🟠 configmap shop/api-config: ConfigMapMissing, 3 pods affected [replay] // medium · ConfigMapMissing · 1 finding",
        "resolve ConfigMap/shop/api-config ConfigMapMissing | ✅ Resolved: configmap shop/api-config [replay] // Now: ConfigMap api-config exists now.",
      ]);
    },
    LONG,
  );

  test(
    "3b. a claim that binds after ten minutes Pending: the claim is the cause from the first message, and its pod starting is no new problem",
    async () => {
      expect(lines(await tell("claim-binds", RECORDED_STORY_TIMING))).toEqual([
        "announce PersistentVolumeClaim/shop/data PVCPending | 🟠 persistentvolumeclaim shop/data: PVCPending, 1 pod affected [replay] // high · PVCPending · 4 findings",
        "resolve PersistentVolumeClaim/shop/data PVCPending | ✅ Resolved: persistentvolumeclaim shop/data [replay] // Now: claim Bound.",
      ]);
    },
    LONG,
  );

  test(
    "3c. a node back with a pod still terminating on it: the kubelet finishing the deletion is no stuck pod",
    async () => {
      expect(lines(await tell("node-back-terminating-pod", RECORDED_STORY_TIMING))).toEqual([
        "announce Node//worker-1 NodeLost | 🟠 node worker-1: unreachable, 1 pod on it down [replay] // high · NodeLost · 2 findings",
        "update Node//worker-1 NodeLost | 🔴 Update: node worker-1: unreachable, 1 pod on it down [replay] // • now paging: the failure has lasted long enough to match a page rule",
        "resolve Node//worker-1 NodeLost | ✅ Resolved: node worker-1 [replay] // Now: node Ready again.",
      ]);
    },
    LONG,
  );

  test(
    "4. an init container exiting 1 on young nodes: announced as the init failure with its exit code, never as 'no available replica'",
    async () => {
      const told = await tell("init-crash-young-nodes", RECORDED_STORY_TIMING);
      expect(lines(told)).toEqual([
        "announce Deployment/shop/api InitContainerFailed | 🟠 deployment shop/api: InitContainerFailed in 2 pods [replay] // high · InitContainerFailed · 3 findings",
        "resolve Deployment/shop/api InitContainerFailed | ✅ Resolved: deployment shop/api [replay] // Now: 2/2 replicas available.",
      ]);
      // The cause, with what an engineer acts on: the init container, its exit code, its output, the command.
      expect(told[0]!.text).toContain("is stuck in init: wait-for-db exit 1 after 3 tries");
      expect(told[0]!.text).toContain("exit code: 1 (Error)");
      expect(told[0]!.text).toContain("kubectl -n shop logs api-");
      expect(told[0]!.text).toContain(" -c wait-for-db --previous");
    },
    LONG,
  );
});
