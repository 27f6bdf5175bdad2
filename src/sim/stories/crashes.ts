import {
  deployment,
  INIT_CRASH,
  NS,
  ORDERS_DB_REFUSED,
  ordersDb,
  service,
  setFate,
  setFates,
  type Story,
} from "./story.ts";

/**
 * Issue 28, observation 1: a Deployment of 2 pods behind a Service, no readiness probe, whose container exits 1
 * about a second after each start, on nodes that just joined; fixed by a rollout 12 minutes later.
 */
export const crashYoungNodes: Story = {
  name: "crash-young-nodes",
  description: "a Deployment behind a Service crash-loops from its first start on young nodes; a rollout fixes it",
  nodes: 2,
  youngNodes: true,
  steps: [
    {
      t: 0,
      say: "kubectl apply: Service api and Deployment api (2 pods, image :crash)",
      run: (cluster) => {
        cluster.apply(service("api"));
        cluster.apply(deployment("api", "registry.example/api:crash", 2));
      },
    },
    {
      t: 720,
      say: "kubectl set image deployment/api api=registry.example/api:2.0",
      run: (cluster) => cluster.apply(deployment("api", "registry.example/api:2.0", 2)),
    },
  ],
  fixedAt: 720,
  lengthSeconds: 1_200,
};

/** One pod of three crash-loops; the cause goes away and the same container runs again (no rollout). */
export const crashFixedInPlace: Story = {
  name: "crash-fixed-in-place",
  description: "one pod of three crash-loops; fixed in place, it restarts after its back-off and stays up",
  nodes: 3,
  steps: [
    {
      t: 0,
      say: "kubectl apply: Service api and Deployment api (3 pods)",
      run: (cluster) => {
        cluster.apply(service("api"));
        cluster.apply(deployment("api", "registry.example/api:1.0", 3));
      },
    },
    {
      t: 90,
      say: "the first pod of api starts failing on every start",
      run: (cluster) => {
        const pod = cluster.podsOf("api")[0];
        if (pod) setFate(cluster, pod.metadata.name, "crash", "panic: runtime error: invalid memory address\n");
      },
    },
    {
      t: 600,
      say: "what it failed on is back: its next start stays up",
      run: (cluster) => setFates(cluster, "api", undefined),
    },
  ],
  fixedAt: 600,
  lengthSeconds: 1_500,
};

/** Issue 28, observation 4: an init container exits 1 on every start, on young nodes; a rollout fixes it. */
export const initCrashYoungNodes: Story = {
  name: "init-crash-young-nodes",
  description: "an init container exits 1 on every start (Init:CrashLoopBackOff) on young nodes; a rollout fixes it",
  nodes: 2,
  youngNodes: true,
  steps: [
    {
      t: 0,
      say: "kubectl apply: Service api and Deployment api whose init container wait-for-db fails",
      run: (cluster) => {
        cluster.apply(service("api"));
        cluster.apply(
          deployment("api", "registry.example/api:1.0", 2, {
            annotations: INIT_CRASH,
            spec: { initContainers: [{ name: "wait-for-db", image: "registry.example/wait-for:1" }] },
          }),
        );
      },
    },
    {
      t: 900,
      say: "the database is reachable: a rollout without the failing init",
      run: (cluster) =>
        cluster.apply(
          deployment("api", "registry.example/api:1.0", 2, {
            spec: { initContainers: [{ name: "wait-for-db", image: "registry.example/wait-for:1" }] },
          }),
        ),
    },
  ],
  fixedAt: 900,
  lengthSeconds: 1_500,
};

/** Both pods of a Deployment fail their readiness probe for 15 minutes while running; the probe passes again. */
export const readinessOnly: Story = {
  name: "readiness-only",
  description: "both pods of a Deployment behind a Service stop passing their readiness probe, then pass again",
  nodes: 2,
  steps: [
    {
      t: 0,
      say: "kubectl apply: Service search and Deployment search (2 pods, readiness probe every 5 s)",
      run: (cluster) => {
        cluster.apply(service("search"));
        cluster.apply(
          deployment("search", "registry.example/search:1.0", 2, {
            spec: {
              containers: [
                {
                  name: "search",
                  image: "registry.example/search:1.0",
                  readinessProbe: {
                    httpGet: { path: "/healthz", port: 8080 },
                    periodSeconds: 5,
                    failureThreshold: 3,
                  },
                },
              ],
            },
          }),
        );
      },
    },
    {
      t: 120,
      say: "/healthz of both pods answers 503",
      run: (cluster) => setFates(cluster, "search", "unready"),
    },
    {
      t: 1_020,
      say: "/healthz answers 200 again",
      run: (cluster) => setFates(cluster, "search", undefined),
    },
  ],
  fixedAt: 1_020,
  lengthSeconds: 1_400,
};

/** A StatefulSet's second replica is OOM-killed on every start; its memory is raised (in place, as by VPA). */
export const statefulSetOom: Story = {
  name: "statefulset-oom",
  description: "one replica of a StatefulSet is OOM-killed on every start, then runs within its memory again",
  nodes: 2,
  steps: [
    {
      t: 0,
      say: "kubectl apply: StatefulSet ledger (2 replicas, 512Mi limit)",
      run: (cluster) => {
        cluster.apply({
          apiVersion: "apps/v1",
          kind: "StatefulSet",
          metadata: { namespace: NS, name: "ledger" },
          spec: {
            replicas: 2,
            serviceName: "ledger",
            selector: { matchLabels: { app: "ledger" } },
            template: {
              metadata: { labels: { app: "ledger" } },
              spec: {
                containers: [
                  { name: "ledger", image: "registry.example/ledger:4.1", resources: { limits: { memory: "512Mi" } } },
                ],
              },
            },
          },
        });
      },
    },
    {
      t: 180,
      say: "ledger-1 outgrows its memory limit on every start",
      run: (cluster) => setFate(cluster, "ledger-1", "oom"),
    },
    { t: 900, say: "ledger-1 runs within its memory again", run: (cluster) => setFate(cluster, "ledger-1", undefined) },
  ],
  fixedAt: 900,
  // An OOM kill is remembered for an hour after the last one (docs/reasons.md OOMKilled).
  lengthSeconds: 900 + 300 + 3_600 + 300,
};

/** A new Deployment whose containers cannot reach their database: the crash names the Service it dials. */
export const dependencyRefused: Story = {
  name: "dependency-refused",
  description: "checkout crash-loops because the orders database refuses connections; the database comes back",
  nodes: 3,
  steps: [
    {
      t: 0,
      say: "kubectl apply: Service orders-db (no selector) and Deployment checkout (2 pods)",
      run: (cluster) => {
        cluster.apply(ordersDb());
        cluster.apply(deployment("checkout", "registry.example/checkout:2.3.1", 2));
      },
    },
    {
      t: 90,
      say: "orders-db refuses connections: both checkout pods exit on start",
      run: (cluster) => setFates(cluster, "checkout", "crash", ORDERS_DB_REFUSED),
    },
    {
      t: 690,
      say: "orders-db accepts connections again",
      run: (cluster) => setFates(cluster, "checkout", undefined),
    },
  ],
  fixedAt: 690,
  lengthSeconds: 1_500,
};
