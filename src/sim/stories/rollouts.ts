import { BUSYBOX, deployment, NS, type Story, sh } from "./story.ts";

/** A rollout whose new pods ask for a node label no node has: the new pod cannot be scheduled; rolled back. */
export const rolloutUnschedulable: Story = {
  name: "rollout-unschedulable",
  description: "a rollout of web asks for nodes labelled disk=ssd, which no node is; it is rolled back",
  nodes: 2,
  steps: [
    {
      t: 0,
      say: "kubectl apply: Deployment web (2 pods)",
      run: (cluster) => cluster.apply(deployment("web", "registry.example/web:1.0", 2)),
    },
    {
      t: 60,
      say: "kubectl apply: web 1.1 with nodeSelector disk=ssd",
      run: (cluster) =>
        cluster.apply(deployment("web", "registry.example/web:1.1", 2, { spec: { nodeSelector: { disk: "ssd" } } })),
    },
    {
      t: 660,
      say: "kubectl rollout undo deployment/web",
      run: (cluster) => cluster.apply(deployment("web", "registry.example/web:1.0", 2)),
    },
  ],
  fixedAt: 660,
  lengthSeconds: 1_100,
  quick: { at: [0, 30, 300], fixedAt: 300, lengthSeconds: 480 },
};

/** A DaemonSet rolled out with an image that does not exist: its first new pod cannot pull; fixed by a new tag. */
export const daemonSetImagePull: Story = {
  name: "daemonset-image-pull",
  description: "a DaemonSet rollout names an image that does not exist; a new tag fixes it",
  nodes: 3,
  steps: [
    {
      t: 0,
      say: "kubectl apply: DaemonSet node-agent",
      run: (cluster) => cluster.apply(daemonSet(BUSYBOX, "2.0")),
    },
    {
      t: 60,
      say: "kubectl set image daemonset/node-agent agent=registry.example/agent:missing",
      run: (cluster) => cluster.apply(daemonSet("registry.example/agent:missing", "2.1")),
    },
    {
      t: 660,
      say: "kubectl set image daemonset/node-agent agent=localhost/busybox:1 (the agent's 2.1)",
      run: (cluster) => cluster.apply(daemonSet(BUSYBOX, "2.1")),
    },
  ],
  fixedAt: 660,
  lengthSeconds: 1_200,
  quick: { at: [0, 30, 270], fixedAt: 270, lengthSeconds: 480 },
  realNode: "together",
};

/** The DaemonSet node-agent running its `version` from `image` (busybox on a real node; a name no registry has). */
function daemonSet(image: string, version: string) {
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { namespace: NS, name: "node-agent" },
    spec: {
      selector: { matchLabels: { app: "node-agent" } },
      template: {
        metadata: { labels: { app: "node-agent" } },
        spec: { containers: [{ ...sh("agent", `echo "agent ${version}"; exec sleep 3600`), image }] },
      },
    },
  };
}
