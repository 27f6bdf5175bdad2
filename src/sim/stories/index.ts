import { configMapVolumeAppears, secretEnvMissing } from "./config.ts";
import {
  crashFixedInPlace,
  crashYoungNodes,
  dependencyRefused,
  inClusterDatabaseRefused,
  initCrashYoungNodes,
  livenessKillLoop,
  readinessOnly,
  statefulSetOom,
} from "./crashes.ts";
import { demoOnControllers } from "./demo.ts";
import { cronJobFailingRuns, jobFailsThenDeleted } from "./batch.ts";
import {
  nodeBackSlicesLag,
  nodeBackTerminatingPod,
  imageTypoNodeLost,
  nodeLostEvicted,
  pinnedSlowStart,
  pinnedToLostNode,
} from "./nodes.ts";
import { daemonSetImagePull, rolloutUnschedulable } from "./rollouts.ts";
import { claimBinds } from "./storage.ts";
import {
  configMapKeyMissing,
  crashRollout,
  dependencyCrashLoop,
  healthyChurn,
  imagePullFixed,
  initFails,
  kubeletRestart,
  oomLimitRaised,
  realNodeLost,
} from "./real-pods.ts";
import type { Story } from "./story.ts";

export { simStoryCluster, type StoryCluster } from "./cluster.ts";
export { NS, type Story, type StoryStep } from "./story.ts";

/**
 * The failure stories told to the simulator's controllers (docs/simulator.md "Stories"), by name: `mon sim
 * --story NAME` plays one, and the timing-invariance property (docs/alert-quality.md) runs each under
 * generated timing profiles. The seven recorded stories (src/sim/scenarios/recorded.ts) join them there.
 */
export const STORIES: readonly Story[] = [
  demoOnControllers,
  crashYoungNodes,
  nodeBackSlicesLag,
  configMapVolumeAppears,
  claimBinds,
  nodeBackTerminatingPod,
  initCrashYoungNodes,
  readinessOnly,
  crashFixedInPlace,
  statefulSetOom,
  dependencyRefused,
  secretEnvMissing,
  rolloutUnschedulable,
  daemonSetImagePull,
  jobFailsThenDeleted,
  nodeLostEvicted,
  cronJobFailingRuns,
  livenessKillLoop,
  pinnedToLostNode,
  inClusterDatabaseRefused,
  crashRollout,
  oomLimitRaised,
  imagePullFixed,
  initFails,
  configMapKeyMissing,
  dependencyCrashLoop,
  healthyChurn,
  kubeletRestart,
  realNodeLost,
  pinnedSlowStart,
  imageTypoNodeLost,
];

/** The story named `name`, or undefined. */
export function storyNamed(name: string): Story | undefined {
  return STORIES.find((s) => s.name === name);
}
