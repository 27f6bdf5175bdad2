import { deployment, remove, service, type Story } from "./story.ts";

const onWorker1 = { spec: { nodeSelector: { "kubernetes.io/hostname": "worker-1" } } };

/** A pod spec's part that pins it to `node` and keeps it there `seconds` after the node is lost (then evicted). */
function pinnedTo(node: string, seconds: number) {
  return {
    nodeSelector: { "kubernetes.io/hostname": node },
    tolerations: [
      { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: seconds },
    ],
  };
}

/**
 * Issue 28, observation 2: a node's kubelet goes silent for two minutes with the pods of two Services on it;
 * when it is back, its pods take a moment to be ready and the EndpointSlice controller lags them.
 */
export const nodeBackSlicesLag: Story = {
  name: "node-back-slices-lag",
  description: "worker-1 is lost for two minutes with the only pods of two Services; it comes back",
  nodes: 2,
  steps: [
    {
      t: 0,
      say: "kubectl apply: Services api and web, their Deployments (1 pod each) on worker-1",
      run: (cluster) => {
        for (const app of ["api", "web"]) {
          cluster.apply(service(app));
          cluster.apply(deployment(app, `registry.example/${app}:1.0`, 1, onWorker1));
        }
      },
    },
    { t: 120, say: "worker-1's kubelet stops posting status", run: (cluster) => cluster.stopKubelet("worker-1") },
    { t: 300, say: "worker-1's kubelet is back", run: (cluster) => cluster.startKubelet("worker-1") },
  ],
  fixedAt: 300,
  lengthSeconds: 700,
  quick: { at: [0, 30, 210], fixedAt: 210, lengthSeconds: 400 },
};

/**
 * Issue 28, observation 3: a node lost for ten minutes; meanwhile its pod is deleted (a rollout, a user) and
 * replaced elsewhere; when the node is back, the kubelet finishes the deletion.
 */
export const nodeBackTerminatingPod: Story = {
  name: "node-back-terminating-pod",
  description:
    "worker-1 is lost; its pod is deleted and replaced elsewhere; the node returns and finishes the deletion",
  nodes: 2,
  steps: [
    {
      t: 0,
      // Two pods on two nodes: one on worker-1 whatever the scheduler (a real one spreads them, as this one).
      say: "kubectl apply: Deployment api (2 pods, one on each node)",
      run: (cluster) => cluster.apply(deployment("api", "registry.example/api:1.0", 2)),
    },
    { t: 150, say: "worker-1's kubelet stops posting status", run: (cluster) => cluster.stopKubelet("worker-1") },
    {
      t: 270,
      say: "kubectl delete pod: api's pod on worker-1",
      run: (cluster) => {
        for (const pod of cluster.podsOf("api"))
          if (pod.spec?.nodeName === "worker-1") remove(cluster, "pods", pod.metadata.name);
      },
    },
    { t: 870, say: "worker-1's kubelet is back", run: (cluster) => cluster.startKubelet("worker-1") },
  ],
  fixedAt: 870,
  lengthSeconds: 1_300,
  quick: { at: [0, 30, 150, 450], fixedAt: 450, lengthSeconds: 600 },
};

/** A node lost long enough for its pods to be evicted (tolerationSeconds 300) and replaced; it comes back later. */
export const nodeLostEvicted: Story = {
  name: "node-lost-evicted",
  description: "worker-3 is lost for 12 minutes: its pod is evicted after 5 and replaced; the node returns",
  nodes: 3,
  steps: [
    {
      t: 0,
      say: "kubectl apply: Service web and Deployment web (3 pods, one per node)",
      run: (cluster) => {
        cluster.apply(service("web"));
        cluster.apply(deployment("web", "registry.example/web:1.0", 3));
      },
    },
    { t: 150, say: "worker-3's kubelet stops posting status", run: (cluster) => cluster.stopKubelet("worker-3") },
    { t: 870, say: "worker-3's kubelet is back", run: (cluster) => cluster.startKubelet("worker-3") },
  ],
  fixedAt: 870,
  lengthSeconds: 1_300,
  quick: { at: [0, 30, 540], fixedAt: 540, lengthSeconds: 720 },
};

/**
 * Issue 40, observation 4: worker-2 is lost with the one pod of a Deployment pinned to it (its nodeSelector
 * matches worker-2 only). Evicted after 60 s, its replacement stays Pending on the node's unreachable taint:
 * unschedulable only because of the lost node, so the node's incident, never a FailedScheduling one beside it.
 */
export const pinnedToLostNode: Story = {
  name: "pinned-to-lost-node",
  description: "worker-2 is lost with the only pod of a Deployment pinned to it; the replacement cannot go elsewhere",
  nodes: 3,
  steps: [
    {
      t: 0,
      say: "kubectl apply: Deployment gpu-worker (1 pod, nodeSelector worker-2, evicted 60 s after its node is lost) and web (3 pods)",
      run: (cluster) => {
        cluster.apply(
          deployment("gpu-worker", "registry.example/gpu-worker:1.0", 1, {
            spec: pinnedTo("worker-2", 60),
          }),
        );
        cluster.apply(deployment("web", "registry.example/web:1.0", 3));
      },
    },
    { t: 150, say: "worker-2's kubelet stops posting status", run: (cluster) => cluster.stopKubelet("worker-2") },
    { t: 870, say: "worker-2's kubelet is back", run: (cluster) => cluster.startKubelet("worker-2") },
  ],
  fixedAt: 870,
  lengthSeconds: 1_300,
  quick: { at: [0, 30, 450], fixedAt: 450, lengthSeconds: 600 },
};

/**
 * Issue 52, item 6: as pinned-to-lost-node, but the pinned Deployment's pod takes 330 s to be ready once it
 * starts (its readiness probe's initial delay), and worker-2 is lost while the first one still starts. When
 * worker-2 is back its replacement starts, and the node's incident gives up waiting for it (5 minutes) a little
 * before it is ready: the Deployment's readiness is judged from the node's resolve, not from when the node went,
 * so it is not announced and resolved seconds later.
 */
export const pinnedSlowStart: Story = {
  name: "pinned-slow-start",
  description:
    "worker-2 is lost with the only pod of a Deployment pinned to it; once back, the replacement is ready just after the node's incident resolves",
  nodes: 3,
  steps: [
    {
      t: 0,
      say: "kubectl apply: Deployment trainer (1 pod, nodeSelector worker-2, evicted 60 s after its node is lost, ready 330 s after it starts) and web (3 pods)",
      run: (cluster) => {
        cluster.apply(
          deployment("trainer", "registry.example/trainer:1.0", 1, {
            spec: {
              ...pinnedTo("worker-2", 60),
              containers: [
                {
                  name: "trainer",
                  image: "registry.example/trainer:1.0",
                  readinessProbe: {
                    httpGet: { path: "/ready", port: 8080 },
                    initialDelaySeconds: 330,
                    periodSeconds: 10,
                  },
                },
              ],
            },
          }),
        );
        cluster.apply(deployment("web", "registry.example/web:1.0", 3));
      },
    },
    { t: 30, say: "worker-2's kubelet stops posting status", run: (cluster) => cluster.stopKubelet("worker-2") },
    { t: 450, say: "worker-2's kubelet is back", run: (cluster) => cluster.startKubelet("worker-2") },
  ],
  fixedAt: 450,
  lengthSeconds: 1_100,
  quick: { at: [0, 30, 450], fixedAt: 450, lengthSeconds: 1_100 },
};

/**
 * Issue 52, item 5: a failure with evidence of its own on a node that is then lost stays its own. cart's image
 * tag is mistyped (its one pod, pinned to worker-2, cannot pull it); minutes later worker-2 is lost for seven
 * minutes (cart tolerates it: not evicted); two minutes after the node is back, the image is fixed. The image is never the
 * node's doing: cart's thread is never folded into the node's, and the node's names only what it took down.
 */
export const imageTypoNodeLost: Story = {
  name: "image-typo-node-lost",
  description:
    "cart's image tag is mistyped on worker-2; minutes later worker-2 is lost for seven minutes; then the tag is fixed",
  nodes: 3,
  steps: [
    {
      t: 0,
      say: "kubectl apply: Deployment cart (1 pod, nodeSelector worker-2, image tag 1.4.O: not found) and web (3 pods)",
      run: (cluster) => {
        cluster.apply(cart("registry.example/cart:1.4.O", { "sim.mon.io/fate": "image-missing" }));
        cluster.apply(deployment("web", "registry.example/web:1.0", 3));
      },
    },
    { t: 150, say: "worker-2's kubelet stops posting status", run: (cluster) => cluster.stopKubelet("worker-2") },
    { t: 570, say: "worker-2's kubelet is back", run: (cluster) => cluster.startKubelet("worker-2") },
    {
      t: 690,
      say: "kubectl set image deployment/cart cart=registry.example/cart:1.4.0",
      run: (cluster) => cluster.apply(cart("registry.example/cart:1.4.0")),
    },
  ],
  fixedAt: 690,
  lengthSeconds: 1_400,
  quick: { at: [0, 150, 570, 690], fixedAt: 690, lengthSeconds: 1_200 },
};

function cart(image: string, annotations?: Record<string, string>) {
  return deployment("cart", image, 1, {
    ...(annotations ? { annotations } : {}),
    spec: pinnedTo("worker-2", 900),
  });
}
