import { deployment, service, setFate, setFates, type Story } from "./story.ts";

/**
 * The control plane's own faults (issue 53, item 3), told on a real control plane of their own
 * (src/testing/fault-stories.ts): its components are killed and started again as a crash and its supervisor
 * would. Not told on the simulator: a simulated API server has no etcd to lose.
 */

/** A control-plane component killed at `t` seconds and started again `downSeconds` later. */
export interface ControlPlaneFault {
  readonly t: number;
  readonly component: "etcd" | "kube-apiserver" | "kube-controller-manager";
  readonly downSeconds: number;
  readonly say: string;
}

/** A fault story: a story, the faults it suffers, and the conversation mon should have about it. */
export interface FaultStory extends Story {
  readonly faults: readonly ControlPlaneFault[];
  /**
   * conversationLines() of what is told (`<incident id>: <action> <reason>, …`, sorted), `shop` and
   * `worker-N` as written; the API server outage's thread as `api-unreachable@T` (its term is the Lease's).
   */
  readonly threads: readonly string[];
  /** Seconds each thread's cause ends, by incident id (`fixedAt` for the others). */
  readonly fixes?: Readonly<Record<string, number>>;
  readonly why: string;
}

/** A story whose steps already run at the real control plane's pace: its quick schedule is itself. */
function atOwnPace(story: Omit<FaultStory, "quick">): FaultStory {
  return {
    ...story,
    quick: {
      at: story.steps.map((s) => s.t),
      ...(story.fixedAt !== undefined ? { fixedAt: story.fixedAt } : {}),
      lengthSeconds: story.lengthSeconds,
    },
  };
}

const web = {
  t: 0,
  say: "kubectl apply: Service web and Deployment web (3 pods)",
  run: (cluster: Parameters<Story["steps"][number]["run"]>[0]) => {
    cluster.apply(service("web"));
    cluster.apply(deployment("web", "registry.example/web:1.0", 3));
  },
};

export const FAULT_STORIES: readonly FaultStory[] = [
  atOwnPace({
    name: "apiserver-killed-mid-incident",
    description: "a crash loop is told; kube-apiserver is killed for 75 s; the crash loop is fixed after",
    nodes: 3,
    steps: [
      web,
      {
        t: 10,
        say: "the first pod of web starts failing on every start",
        run: (cluster) => {
          const pod = cluster.podsOf("web")[0];
          if (pod) setFate(cluster, pod.metadata.name, "crash", "panic: cannot load its settings\n");
        },
      },
      { t: 240, say: "what it failed on is back", run: (cluster) => setFates(cluster, "web", undefined) },
    ],
    faults: [{ t: 90, component: "kube-apiserver", downSeconds: 75, say: "kube-apiserver killed, back at 165 s" }],
    fixedAt: 240,
    fixes: { "api-unreachable@T": 165 },
    lengthSeconds: 540,
    threads: [
      "Deployment/shop/web: announce CrashLoopBackOff, resolve CrashLoopBackOff",
      "api-unreachable@T: announce APIServerUnreachable, resolve APIServerUnreachable",
    ],
    why: "The API server down past a minute is one paging thread by the replica that led, resolved when it answers. The crash loop told before is not told again after it, and resolves once fixed; nothing is blamed on the nodes (their heartbeats stopped with the server), the Services' EndpointSlices catching up, or the server's readiness as it starts.",
  }),
  atOwnPace({
    name: "etcd-killed-quiet",
    description: "a quiet cluster; etcd is killed for 90 s",
    nodes: 3,
    steps: [web],
    faults: [{ t: 60, component: "etcd", downSeconds: 90, say: "etcd killed, back at 150 s" }],
    lengthSeconds: 480,
    threads: ["api-unreachable@T: announce APIServerUnreachable, resolve APIServerUnreachable"],
    why: "Issue 53 (1, 2): with etcd down the API server's requests hang, so the API server is unreachable for longer than etcd is down (its storage must come back first): past the minute, one paging thread by the replica that led, resolved when it answers. Every kubelet's heartbeat stopped with etcd, so the nodes go Unknown together once it is back, or one by one as the node lifecycle controller catches up: held a minute, healed within it, never told as node losses.",
  }),
  atOwnPace({
    name: "apiserver-restarted-node-lost",
    description: "worker-3 is lost; kube-apiserver is restarted meanwhile; worker-3 comes back",
    nodes: 3,
    steps: [
      web,
      { t: 30, say: "worker-3's kubelet stops posting status", run: (cluster) => cluster.stopKubelet("worker-3") },
      { t: 330, say: "worker-3's kubelet is back", run: (cluster) => cluster.startKubelet("worker-3") },
    ],
    faults: [{ t: 150, component: "kube-apiserver", downSeconds: 15, say: "kube-apiserver restarted (down 15 s)" }],
    fixedAt: 330,
    lengthSeconds: 600,
    threads: ["Node//worker-3: announce NodeLost, resolve NodeLost"],
    why: "Issue 53 (3): the node's thread goes on through the restart; no Service is told behind on its EndpointSlices while the controllers catch up, no APIServerUnhealthy from the readiness read as the server starts, and the node resolves once Ready again.",
  }),
  atOwnPace({
    name: "changes-before-outage",
    description:
      "a crash loop is told; it is fixed and a new one begins seconds before kube-apiserver is killed for 70 s",
    nodes: 3,
    steps: [
      {
        t: 0,
        say: "kubectl apply: Deployment api (image :crash) and Deployment web",
        run: (cluster) => {
          cluster.apply(deployment("api", "registry.example/api:crash", 1));
          web.run(cluster);
        },
      },
      {
        t: 100,
        say: "kubectl set image deployment/api api=registry.example/api:1.0; kubectl apply: Deployment jobs (image :crash)",
        run: (cluster) => {
          cluster.apply(deployment("api", "registry.example/api:1.0", 1));
          cluster.apply(deployment("jobs", "registry.example/jobs:crash", 1));
        },
      },
      {
        t: 330,
        say: "kubectl set image deployment/jobs jobs=registry.example/jobs:1.0",
        run: (cluster) => cluster.apply(deployment("jobs", "registry.example/jobs:1.0", 1)),
      },
    ],
    faults: [{ t: 105, component: "kube-apiserver", downSeconds: 70, say: "kube-apiserver killed, back at 175 s" }],
    fixedAt: 330,
    fixes: { "Deployment/shop/api": 100, "api-unreachable@T": 175 },
    lengthSeconds: 600,
    threads: [
      "Deployment/shop/api: announce CrashLoopBackOff, resolve CrashLoopBackOff",
      "Deployment/shop/jobs: announce CrashLoopBackOff, resolve CrashLoopBackOff",
      "api-unreachable@T: announce APIServerUnreachable, resolve APIServerUnreachable",
    ],
    why: "Issue 53 (4): what changed just before an outage is told correctly once the server is back — the fix as a resolve, the new crash loop as news — and the outage itself as one thread.",
  }),
  atOwnPace({
    name: "controller-manager-restarted",
    description: "a quiet cluster; kube-controller-manager is killed and started again 10 s later",
    nodes: 3,
    steps: [web],
    faults: [{ t: 60, component: "kube-controller-manager", downSeconds: 10, say: "kube-controller-manager killed" }],
    lengthSeconds: 360,
    threads: [],
    why: "Issue 53 (3): its restart resyncs every controller — the EndpointSlices, the node lifecycle — and none of that is a failure: nothing is told.",
  }),
];
