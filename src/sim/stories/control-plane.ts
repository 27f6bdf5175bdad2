import type { StoryCluster } from "./cluster.ts";
import { deployment, service, type Story } from "./story.ts";

/**
 * Stories of the control plane's own faults seen from the nodes (issue 53): every kubelet's heartbeat stops at
 * once — an etcd or API server outage, or the network between the nodes and the control plane — so the node
 * lifecycle controller marks every node Unknown together. Told on the simulator under generated timings
 * (src/e2e/timing-invariance.test.ts); not on the shared real control plane, where a story's three nodes are a
 * few of many (a heartbeat gap is most of a cluster's nodes): there the control plane's own faults are the
 * proof.
 */

const NODES = ["worker-1", "worker-2", "worker-3"];
const stopAll = (cluster: StoryCluster) => {
  for (const node of NODES) cluster.stopKubelet(node);
};
const startAll = (cluster: StoryCluster) => {
  for (const node of NODES) cluster.startKubelet(node);
};
const web = {
  t: 0,
  say: "kubectl apply: Service web and Deployment web (3 pods)",
  run: (cluster: StoryCluster) => {
    cluster.apply(service("web"));
    cluster.apply(deployment("web", "registry.example/web:1.0", 3));
  },
};

/**
 * Every kubelet's heartbeat stops at `60` s (`why`) and is back at `backAt` s: the story of a heartbeat gap
 * lasting that long, Service and Deployment web (3 pods) on its three nodes.
 */
function heartbeatGapStory(name: string, description: string, why: string, backAt: number): Story {
  return {
    name,
    description,
    nodes: 3,
    steps: [
      web,
      { t: 60, say: `every kubelet's heartbeat stops (${why})`, run: stopAll },
      { t: backAt, say: "every kubelet's heartbeat is back", run: startAll },
    ],
    fixedAt: backAt,
    lengthSeconds: backAt + 600,
    quick: { at: [0, 60, backAt], fixedAt: backAt, lengthSeconds: backAt + 600 },
  };
}

/**
 * Issue 53 (2), as seen after a 45-s etcd outage: every node goes Unknown together and is Ready again within a
 * minute. Before: three NodeLost announced in a roll-up and resolved 12–30 s later. Now: nothing — nodes lost
 * together are held a minute, and the gap healed within it. Back within the gap's minute under any legal timing:
 * Unknown 70–120 s (the last Lease renewal 0–10 s before the stop, the node-monitor grace 20–60 s), Ready again
 * by 120 s.
 */
export const heartbeatGapShort = heartbeatGapStory(
  "heartbeat-gap-short",
  "no kubelet can renew its heartbeat for a while (the control plane is down): every node Unknown, then back",
  "etcd is down",
  110,
);

/**
 * Issue 53 (2): every node Unknown together for minutes. One incident for the control plane (or the network to
 * it) naming the nodes, never three node losses; resolved once they are back.
 */
export const heartbeatGapLong = heartbeatGapStory(
  "heartbeat-gap-long",
  "no kubelet can renew its heartbeat for 4 minutes: one control-plane incident, never three lost nodes",
  "the network to the control plane is cut",
  300,
);

/** The control plane's stories, by name. */
export const CONTROL_PLANE_STORIES: readonly Story[] = [heartbeatGapShort, heartbeatGapLong];
