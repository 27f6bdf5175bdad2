import {
  BUSYBOX,
  between,
  deployment,
  INIT_CRASH,
  NS,
  ORDERS_DB_REFUSED,
  ordersDb,
  serveHealth,
  service,
  setFate,
  setFates,
  sh,
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
  quick: { at: [0, 420], fixedAt: 420, lengthSeconds: 600 },
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
  quick: { at: [0, 30, 240], fixedAt: 240, lengthSeconds: 420 },
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
  quick: { at: [0, 540], fixedAt: 540, lengthSeconds: 720 },
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
          deployment("search", BUSYBOX, 2, {
            spec: {
              containers: [
                sh("search", serveHealth("healthz", between(cluster, 1, 2)), {
                  readinessProbe: {
                    httpGet: { path: "/healthz", port: 8080 },
                    periodSeconds: 5,
                    failureThreshold: 3,
                  },
                }),
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
  quick: { at: [0, 30, 480], fixedAt: 480, lengthSeconds: 660 },
  realNode: "together",
};

/** A StatefulSet's second replica is OOM-killed on every start; its memory is raised (in place, as by VPA). */
export const statefulSetOom: Story = {
  name: "statefulset-oom",
  description: "one replica of a StatefulSet is OOM-killed on every start, then runs within its memory again",
  nodes: 2,
  steps: [
    {
      t: 0,
      say: "kubectl apply: StatefulSet ledger (2 replicas, 64Mi limit)",
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
                  // On a real node ledger-1 outgrows its limit on every start from step 1 to step 2.
                  sh(
                    "ledger",
                    [
                      "echo ready",
                      "while true; do",
                      `  if [ "$(hostname)" = ledger-1 ] && ${between(cluster, 1, 2)}; then echo "loading the ledger snapshot"; x=$(head -c 100000000 /dev/zero | tr '\\0' a); fi`,
                      "  sleep 1",
                      "done",
                    ].join("\n"),
                    { resources: { limits: { memory: "64Mi" } } },
                  ),
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
  quick: {
    at: [0, 30, 240],
    fixedAt: 240,
    lengthSeconds: 420,
    threads: ["StatefulSet/shop/ledger: announce OOMKilled"],
    why: "An OOM kill is remembered for an hour after the last one (docs/reasons.md), so its resolve comes an hour after the fix, beyond a CI run; the simulator tells the whole story.",
  },
  realNode: "together",
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
  quick: { at: [0, 30, 240], fixedAt: 240, lengthSeconds: 420 },
};

/**
 * Issue 40, observation 3: the liveness probe of both pods of a Deployment fails (its handler checks a cache
 * that hangs), so the kubelet kills and restarts them in a loop (Unhealthy, Killing, exit 137, back-off). The
 * announcement names the probe, not "out of memory or a liveness-probe kill". The handler is fixed in place.
 */
export const livenessKillLoop: Story = {
  name: "liveness-kill-loop",
  description: "the liveness probe of both api pods fails, so the kubelet kills them in a loop; the probe passes again",
  nodes: 2,
  steps: [
    {
      t: 0,
      say: "kubectl apply: Service api and Deployment api (2 pods, liveness probe every 5 s, 3 failures)",
      run: (cluster) => {
        cluster.apply(service("api"));
        cluster.apply(
          deployment("api", BUSYBOX, 2, {
            spec: {
              containers: [
                sh("api", serveHealth("healthz", between(cluster, 1, 2)), {
                  livenessProbe: { httpGet: { path: "/healthz", port: 8080 }, periodSeconds: 5, failureThreshold: 3 },
                }),
              ],
            },
          }),
        );
      },
    },
    { t: 60, say: "/healthz of both api pods answers 500", run: (cluster) => setFates(cluster, "api", "liveness") },
    { t: 660, say: "/healthz answers 200 again", run: (cluster) => setFates(cluster, "api", undefined) },
  ],
  fixedAt: 660,
  lengthSeconds: 1_500,
  quick: { at: [0, 30, 240], fixedAt: 240, lengthSeconds: 420 },
  realNode: "together",
};

/** The in-cluster database's ClusterIP, as its Service names it. */
const POSTGRES_IP = "10.96.14.9";

/**
 * Issue 40, observation 5: an in-cluster database (StatefulSet postgres behind Service postgres) crash-loops;
 * once it is told, three Deployments crash on start, refused at the Service's ClusterIP. Their failures are the
 * database's doing: one incident rooted at the StatefulSet, whose update names every workload failing on it.
 * The database is fixed in place.
 */
export const inClusterDatabaseRefused: Story = {
  name: "in-cluster-database-refused",
  description: "StatefulSet postgres crash-loops; checkout, cart and billing crash refused by its Service; it is fixed",
  nodes: 3,
  steps: [
    {
      t: 0,
      say: "kubectl apply: StatefulSet postgres, Service postgres (ClusterIP 10.96.14.9), Deployments checkout, cart, billing",
      run: (cluster) => {
        cluster.apply(
          service("postgres", {
            clusterIP: POSTGRES_IP,
            clusterIPs: [POSTGRES_IP],
            ports: [{ name: "postgres", port: 5432 }],
          }),
        );
        cluster.apply({
          apiVersion: "apps/v1",
          kind: "StatefulSet",
          metadata: { namespace: NS, name: "postgres" },
          spec: {
            replicas: 1,
            serviceName: "postgres",
            selector: { matchLabels: { app: "postgres" } },
            template: {
              metadata: { labels: { app: "postgres" } },
              spec: { containers: [{ name: "postgres", image: "registry.example/postgres:16" }] },
            },
          },
        });
        for (const app of ["checkout", "cart", "billing"])
          cluster.apply(deployment(app, `registry.example/${app}:1.0`, 1));
      },
    },
    {
      t: 120,
      say: "postgres-0 fails on every start (a corrupt checkpoint)",
      run: (cluster) => setFate(cluster, "postgres-0", "crash", "PANIC:  could not locate a valid checkpoint record\n"),
    },
    {
      t: 480,
      say: "checkout, cart and billing exit on start: connection refused by postgres",
      run: (cluster) => {
        for (const app of ["checkout", "cart", "billing"])
          setFates(cluster, app, "crash", `Error: dial tcp ${POSTGRES_IP}:5432: connect: connection refused\n`);
      },
    },
    {
      t: 900,
      say: "postgres starts cleanly again, and so do its clients",
      run: (cluster) => {
        setFate(cluster, "postgres-0", undefined);
        for (const app of ["checkout", "cart", "billing"]) setFates(cluster, app, undefined);
      },
    },
  ],
  fixedAt: 900,
  lengthSeconds: 1_800,
  quick: { at: [0, 30, 120, 420], fixedAt: 420, lengthSeconds: 600 },
};
