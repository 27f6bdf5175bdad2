import { deployment, fate, ORDERS_DB_REFUSED, ordersDb, setFates, type Story } from "./story.ts";

const on = (node: string) => ({ spec: { nodeSelector: { "kubernetes.io/hostname": node } } });

/**
 * `mon demo`'s story (src/sim/scenarios/demo.ts) told to the controllers instead of placed by hand: worker-3
 * is lost with the pod of search on it; checkout crash-loops because orders-db refuses; a rollout of cart names
 * an image that does not exist; then each is fixed.
 */
export const demoOnControllers: Story = {
  name: "demo",
  description: "mon demo's story on the controllers: a lost node, a crash loop on a refusing database, an image typo",
  nodes: 3,
  steps: [
    {
      t: 0,
      say: "kubectl apply: the shop (orders-db, checkout, cart, catalog, search)",
      run: (cluster) => {
        cluster.apply(ordersDb());
        cluster.apply(deployment("checkout", "ghcr.io/shop/checkout:2.3.1", 2, on("worker-1")));
        cluster.apply(deployment("cart", "ghcr.io/shop/cart:1.4.0", 2, on("worker-2")));
        cluster.apply(deployment("catalog", "ghcr.io/shop/catalog:3.0.2", 2, on("worker-2")));
        // search stays bound to worker-3 through its loss (it tolerates an unreachable node for good).
        cluster.apply(
          deployment("search", "ghcr.io/shop/search:0.9.8", 1, {
            spec: {
              ...on("worker-3").spec,
              tolerations: [{ key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute" }],
            },
          }),
        );
      },
    },
    { t: 150, say: "worker-3 stops posting status", run: (cluster) => cluster.stopKubelet("worker-3") },
    {
      t: 180,
      say: "orders-db refuses connections: checkout exits on every start",
      run: (cluster) => setFates(cluster, "checkout", "crash", ORDERS_DB_REFUSED),
    },
    {
      t: 210,
      say: "a rollout of cart uses the image tag 1.4.O (a typo for 1.4.0)",
      run: (cluster) =>
        cluster.apply(
          deployment("cart", "ghcr.io/shop/cart:1.4.O", 2, { ...on("worker-2"), annotations: fate("image-missing") }),
        ),
    },
    { t: 870, say: "worker-3 is back", run: (cluster) => cluster.startKubelet("worker-3") },
    {
      t: 890,
      say: "orders-db accepts connections again",
      run: (cluster) => setFates(cluster, "checkout", undefined),
    },
    {
      t: 910,
      say: "kubectl set image deployment/cart cart=ghcr.io/shop/cart:1.4.0",
      run: (cluster) => cluster.apply(deployment("cart", "ghcr.io/shop/cart:1.4.0", 2, on("worker-2"))),
    },
  ],
  fixedAt: 910,
  lengthSeconds: 1_900,
  quick: {
    at: [0, 30, 60, 90, 450, 460, 470],
    fixedAt: 470,
    fixes: { "Node//worker-3": 450, "Endpoint//orders-db.shop:5432": 460 },
    lengthSeconds: 660,
  },
};
