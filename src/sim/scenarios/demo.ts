import type { Scenario } from "../scenario.ts";
import type { KubeObject } from "../store.ts";
import { deployment, nodeReady, readyNode, runningPod, runningStatus } from "./builders.ts";

const NS = "shop";
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");

/**
 * The `mon demo` story (issue "main job"): a shop on three nodes. worker-3 is lost with three pods on it
 * (one incident, rooted at the node); `checkout` crash-loops, first one pod then both (one incident, one
 * update); a rollout of `cart` has an image typo; then everything recovers and each incident resolves.
 * About 30 s of steps.
 */
export const demoScenario: Scenario = {
  name: "demo",
  description: "node lost with three pods, a crash-looping Deployment, an image typo, then recovery",
  setup(sim, now) {
    for (const node of ["worker-1", "worker-2", "worker-3"]) sim.apply(readyNode(node, now - 86_400_000));
    sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
    // The orders database runs outside the cluster behind a selector-less Service (its address is what checkout dials).
    sim.apply({
      apiVersion: "v1",
      kind: "Service",
      metadata: { namespace: NS, name: "orders-db" },
      spec: { clusterIP: "10.96.14.7", clusterIPs: ["10.96.14.7"], ports: [{ name: "postgres", port: 5432 }] },
    });
    const apps: [string, number, string, string, string[]][] = [
      ["checkout", 2, "ghcr.io/shop/checkout:2.3.1", "7c9d8f6b5", ["worker-1", "worker-2"]],
      ["cart", 2, "ghcr.io/shop/cart:1.4.0", "5d8b7f9c4", ["worker-1", "worker-3"]],
      ["catalog", 2, "ghcr.io/shop/catalog:3.0.2", "6f7c8d9b2", ["worker-2", "worker-3"]],
      ["search", 1, "ghcr.io/shop/search:0.9.8", "8b9c6d4f7", ["worker-3"]],
    ];
    for (const [name, replicas, image, hash, nodes] of apps) {
      const { deployment: dep, replicaSet } = deployment(NS, name, replicas, image, hash);
      // Installed with Helm a week ago: the Deployment's managedFields name it.
      const storedDep = sim.apply(
        { ...dep, metadata: { ...dep.metadata, creationTimestamp: iso(now - 7 * 86_400_000) } },
        "helm",
        now - 7 * 86_400_000,
      );
      const storedRs = sim.apply({
        ...replicaSet,
        metadata: { ...replicaSet.metadata, ownerReferences: [owner(storedDep)] },
      });
      for (const [i, node] of nodes.entries()) {
        sim.apply(runningPod(storedRs, `${"abcde"[i]}${hash.slice(0, 4)}`, node, now - 3_600_000));
      }
    }
  },
  steps: [
    {
      atMs: 2_000,
      say: "worker-3 stops posting status: the node is lost with 3 pods on it",
      run(sim, now) {
        const node = sim.store.get(type(sim, "Node"), undefined, "worker-3");
        sim.patchStatus("v1", "Node", undefined, "worker-3", {
          conditions: [nodeReady("Unknown", now)],
          nodeInfo: node.status.nodeInfo,
          addresses: node.status.addresses,
        });
        for (const pod of podsOn(sim, "worker-3"))
          sim.patchStatus("v1", "Pod", NS, pod.metadata.name, {
            conditions: [{ type: "Ready", status: "False", lastTransitionTime: iso(now) }],
          });
      },
    },
    {
      atMs: 5_000,
      say: "checkout starts crash-looping: it cannot reach its database",
      run(sim, now) {
        crash(sim, "checkout-7c9d8f6b5-a7c9d", now, 3);
      },
    },
    {
      atMs: 8_000,
      say: "a rollout of cart uses the image tag 1.4.O (a typo for 1.4.0)",
      run(sim, now) {
        const rs = sim.store.get(type(sim, "ReplicaSet"), NS, "cart-5d8b7f9c4");
        // `kubectl set image` wrote the Deployment, and the Deployment controller made revision 2, as the pod
        // was accepted (the story compresses time: two and a half minutes ago).
        const rolledAt = now - 152_000;
        const template = {
          ...rs.spec.template,
          spec: { ...rs.spec.template.spec, containers: [{ name: "cart", image: "ghcr.io/shop/cart:1.4.O" }] },
        };
        const dep = sim.store.get(type(sim, "Deployment"), NS, "cart");
        sim.apply({ ...dep, spec: { ...dep.spec, template } }, "kubectl-set", rolledAt);
        const bad = {
          ...rs,
          metadata: {
            namespace: NS,
            name: "cart-64f5b8d7c9",
            labels: { app: "cart", "pod-template-hash": "64f5b8d7c9" },
            annotations: { "deployment.kubernetes.io/revision": "2" },
            creationTimestamp: iso(rolledAt),
            ownerReferences: rs.metadata.ownerReferences,
          },
          spec: { ...rs.spec, template },
        };
        const stored = sim.apply(bad);
        const pod = runningPod(stored, "x2kq9", "worker-2", now, "ghcr.io/shop/cart:1.4.O");
        // The story compresses time: the kubelet accepted the pod two and a half minutes ago, past the image-pull hold.
        pod.status = {
          phase: "Pending",
          startTime: iso(now - 150_000),
          conditions: [{ type: "PodScheduled", status: "True", lastTransitionTime: iso(now - 150_000) }],
          containerStatuses: [
            {
              name: "cart",
              image: "ghcr.io/shop/cart:1.4.O",
              imageID: "",
              ready: false,
              started: false,
              restartCount: 0,
              state: {
                waiting: {
                  reason: "ImagePullBackOff",
                  message:
                    'Back-off pulling image "ghcr.io/shop/cart:1.4.O": ErrImagePull: failed to pull and unpack image "ghcr.io/shop/cart:1.4.O": failed to resolve reference "ghcr.io/shop/cart:1.4.O": ghcr.io/shop/cart:1.4.O: not found',
                },
              },
              lastState: {},
            },
          ],
        };
        sim.apply(pod);
      },
    },
    {
      atMs: 11_000,
      say: "checkout keeps crashing (restart counts grow: not news), and its second pod starts crashing too: news, but it waits out the 5-minute update cooldown after the announcement, so nothing is sent yet",
      run(sim, now) {
        crash(sim, "checkout-7c9d8f6b5-a7c9d", now, 5);
        crash(sim, "checkout-7c9d8f6b5-b7c9d", now, 3);
      },
    },
    {
      atMs: 16_000,
      say: "worker-3 comes back: the node is Ready and its pods run again",
      run(sim, now) {
        const node = sim.store.get(type(sim, "Node"), undefined, "worker-3");
        sim.patchStatus("v1", "Node", undefined, "worker-3", {
          conditions: [nodeReady("True", now)],
          nodeInfo: node.status.nodeInfo,
          addresses: node.status.addresses,
        });
        for (const pod of podsOn(sim, "worker-3")) {
          const c = pod.spec.containers[0];
          sim.store.update(
            type(sim, "Pod"),
            NS,
            pod.metadata.name,
            { status: runningStatus(c.name, c.image, iso(now)) },
            "status",
          );
        }
      },
    },
    {
      atMs: 19_000,
      say: "the checkout database is back: both pods run and are ready",
      run(sim, now) {
        for (const name of ["checkout-7c9d8f6b5-a7c9d", "checkout-7c9d8f6b5-b7c9d"]) {
          sim.store.update(
            type(sim, "Pod"),
            NS,
            name,
            { status: runningStatus("checkout", "ghcr.io/shop/checkout:2.3.1", iso(now), 6) },
            "status",
          );
        }
      },
    },
    {
      atMs: 22_000,
      say: "the cart rollout is fixed: the bad pod and ReplicaSet are gone",
      run(sim) {
        sim.remove("v1", "Pod", NS, "cart-64f5b8d7c9-x2kq9");
        sim.remove("apps/v1", "ReplicaSet", NS, "cart-64f5b8d7c9");
      },
    },
  ],
};

// --- internal ---

function owner(object: KubeObject): KubeObject {
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    name: object.metadata.name,
    uid: object.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

function type(sim: Parameters<Scenario["setup"]>[0], kind: string) {
  const found = {
    Node: ["", "v1", "nodes"],
    Pod: ["", "v1", "pods"],
    ReplicaSet: ["apps", "v1", "replicasets"],
    Deployment: ["apps", "v1", "deployments"],
  }[kind];
  return sim.typeOf(found?.[0] ?? "", found?.[1] ?? "v1", found?.[2] ?? "");
}

function podsOn(sim: Parameters<Scenario["setup"]>[0], node: string): KubeObject[] {
  return sim.store.list(type(sim, "Pod"), NS).filter((p) => p.spec?.nodeName === node);
}

function crash(sim: Parameters<Scenario["setup"]>[0], pod: string, now: number, restarts: number): void {
  sim.setLogs(
    NS,
    pod,
    "checkout",
    [
      `${iso(now - 3_000)} INFO  checkout 2.3.1 starting on :8080`,
      `${iso(now - 2_900)} INFO  connecting to postgres://checkout:s3cret@orders-db.shop:5432/orders`,
      `${iso(now - 1_200)} ERROR dial tcp 10.96.14.7:5432: connect: connection refused`,
      `${iso(now - 1_100)} FATAL cannot start without the orders database; exiting`,
      "",
    ].join("\n"),
    true,
  );
  sim.store.update(
    type(sim, "Pod"),
    NS,
    pod,
    {
      status: {
        phase: "Running",
        conditions: [
          {
            type: "Ready",
            status: "False",
            reason: "ContainersNotReady",
            message: "containers with unready status: [checkout]",
            lastTransitionTime: iso(now),
          },
        ],
        containerStatuses: [
          {
            name: "checkout",
            image: "ghcr.io/shop/checkout:2.3.1",
            imageID: `ghcr.io/shop/checkout@sha256:${"1".repeat(64)}`,
            ready: false,
            started: false,
            restartCount: restarts,
            state: {
              waiting: {
                reason: "CrashLoopBackOff",
                message: `back-off 40s restarting failed container=checkout pod=${pod}_shop`,
              },
            },
            lastState: {
              terminated: {
                exitCode: 1,
                reason: "Error",
                message:
                  "dial tcp 10.96.14.7:5432: connect: connection refused (postgres://checkout:s3cret@orders-db.shop:5432/orders)",
                startedAt: iso(now - 3_000),
                finishedAt: iso(now - 1_000),
              },
            },
          },
        ],
      },
    },
    "status",
  );
}
