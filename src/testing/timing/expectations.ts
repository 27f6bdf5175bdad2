/**
 * What a platform engineer is told for each story, whatever the timing (issue 28, docs/alert-quality.md
 * "Timing invariance"): per provider thread, its announcements, updates and resolves with their reasons, the
 * same under every legal timing profile. `resolvesWithin` is the documented bound, in seconds after the fix,
 * within which every announced thread resolves under any legal timing; `why` records the judgement calls.
 */
export interface TimedExpectation {
  readonly story: string;
  /** `controllers`: a story of src/sim/stories; `recorded`: a recorded timeline's story told to the controllers. */
  readonly source: "controllers" | "recorded";
  /** conversationLines() of what is told: `<incident id>: <action> <reason>, …`, sorted. */
  readonly threads: readonly string[];
  /** Seconds after the start when the failure is fixed (recorded stories; catalogue stories carry their own). */
  readonly fixedAt?: number;
  /**
   * Threads fixed at another second than the story's `fixedAt`, by incident id (a story of several failures);
   * `Infinity` for a thread the story never fixes: any resolve of it is false.
   */
  readonly fixes?: Readonly<Record<string, number>>;
  /** Seconds after the fix within which every announced thread resolves, under any legal timing. */
  readonly resolvesWithin?: number;
  /** Recorded stories: how long to run, seconds (their recordings are shorter than the slowest timing). */
  readonly lengthSeconds?: number;
  /** Recorded stories: driver steps moved from one second to another, so the failure lasts under any timing. */
  readonly moved?: readonly (readonly [number, number])[];
  /** Words some message of a thread must say, by incident id (what names the cause: the probe, the dependents). */
  readonly mentions?: Readonly<Record<string, readonly string[]>>;
  /**
   * Threads whose recovery wait runs out by design (what they named is back only later): their resolve says what
   * is still not back, by incident id.
   */
  readonly notBack?: readonly string[];
  /** Words no message of the story may say (what a silence holds back). */
  readonly unsaid?: readonly string[];
  readonly why: string;
}

/**
 * A crash loop fixed in place: the back-off it is in (≤ 5 min), the start of the new run (≤ 1 min), the
 * confirmation of that run (≤ 30 s, issue 40) and the recovery wait and passes.
 */
const IN_PLACE = 480;

export const TIMED_EXPECTATIONS: readonly TimedExpectation[] = [
  {
    story: "statefulset_crash",
    source: "recorded",
    threads: ["StatefulSet/tl-statefulset-crash/ledger: announce CrashLoopBackOff, resolve CrashLoopBackOff"],
    fixedAt: 130,
    resolvesWithin: IN_PLACE,
    lengthSeconds: 130 + IN_PLACE + 60,
    why: "Fixed in place at t=130: the container restarts after its current back-off and must stay up before the crash loop counts as over.",
  },
  {
    story: "configmap_missing",
    source: "recorded",
    threads: ["ConfigMap/tl-configmap-missing/reports-config: announce ConfigMapMissing, resolve ConfigMapMissing"],
    fixedAt: 100.3,
    resolvesWithin: 180,
    lengthSeconds: 400,
    why: "The resolve waits for the pod the ConfigMap held back to be ready, however long its start takes.",
  },
  {
    story: "node_lost_daemonset",
    source: "recorded",
    threads: ["Node//tl-node-b: announce NodeLost, resolve NodeLost"],
    fixedAt: 150,
    resolvesWithin: 120,
    lengthSeconds: 400,
    why: "Down for less than 5 minutes: no page. Resolved when the node is Ready and its pods run again.",
  },
  {
    story: "readiness_flap",
    source: "recorded",
    threads: ["Deployment/tl-readiness-flap/search: announce ReadinessProbeFailing, resolve ReadinessProbeFailing"],
    moved: [[140.7, 400]],
    fixedAt: 400,
    resolvesWithin: 180,
    lengthSeconds: 700,
    why: "The recording fixed the probes at t=140.7, as the Service's 2-minute wait ran out; under other timings that is before anything is told, so the property tells the same story with the fix at t=400.",
  },
  {
    story: "rollout_surge",
    source: "recorded",
    threads: [],
    lengthSeconds: 300,
    why: "Healthy churn under any timing.",
  },
  {
    story: "scale_to_zero_and_back",
    source: "recorded",
    threads: [],
    lengthSeconds: 300,
    why: "Scaling to zero is deliberate; pods starting after the scale-up, however slowly, are recovery.",
  },
  {
    story: "job_backoff",
    source: "recorded",
    threads: ["Job/tl-job-backoff/migrate: announce ContainerExitedNonZero, update ContainerExitedNonZero"],
    lengthSeconds: 900,
    why: "Each attempt exits 1; that the Job gave up (JobFailed) is news, told when the 5-minute cooldown ends. It stays failed: no resolve.",
  },
  {
    story: "demo",
    source: "controllers",
    threads: [
      "Deployment/shop/cart: announce ImagePullBackOff, resolve ImagePullBackOff",
      "Endpoint//orders-db.shop:5432: announce DependencyUnreachable, resolve DependencyUnreachable",
      "Node//worker-3: announce NodeLost, update NodeLost, resolve NodeLost",
    ],
    fixes: { "Node//worker-3": 870, "Endpoint//orders-db.shop:5432": 890 },
    resolvesWithin: IN_PLACE,
    why: "Three causes, three threads. worker-3 is down 11 minutes with a pod on it: it starts paging after 5 (the update). checkout is fixed in place, so its resolve waits for the back-off and the confirmed run.",
  },
  {
    story: "crash-young-nodes",
    source: "controllers",
    threads: ["Deployment/shop/api: announce CrashLoopBackOff, resolve CrashLoopBackOff"],
    resolvesWithin: 300,
    why: "Issue 28 (1). Whatever the back-off: one announcement, the crash loop naming it (the Service joins it), one resolve after the rollout's pods are available. No resolve between two crashes, no 'failing again'.",
  },
  {
    story: "node-back-slices-lag",
    source: "controllers",
    threads: ["Node//worker-1: announce NodeLost, resolve NodeLost"],
    resolvesWithin: 120,
    why: "Issue 28 (2). The Services whose only pods were on the node are the node's incident; when it returns, its pods and the lagging EndpointSlices catching up are recovery: the node resolves once they are back, nothing else is told.",
  },
  {
    story: "configmap-volume-appears",
    source: "controllers",
    threads: ["ConfigMap/shop/api-config: announce ConfigMapMissing, resolve ConfigMapMissing"],
    resolvesWithin: 180,
    why: "Issue 28 (3). The ConfigMap is told as soon as the Deployments' pods name it, with the pods it stops (issue 52: they are affected from its first message, so their FailedMount is that cause at work, not news). The FailedMount events of pods that start once it exists are history, and the Deployments without replicas meanwhile are its recovery.",
  },
  {
    story: "claim-binds",
    source: "controllers",
    threads: ["PersistentVolumeClaim/shop/data: announce PVCPending, resolve PVCPending"],
    resolvesWithin: 240,
    why: "Issue 28 (3). The claim is the cause of the pod that cannot be scheduled (it waits for the claim's hold); after binding, the pod starting is recovery.",
  },
  {
    story: "node-back-terminating-pod",
    source: "controllers",
    threads: ["Node//worker-1: announce NodeLost, update NodeLost, resolve NodeLost"],
    resolvesWithin: 120,
    why: "Issue 28 (3). Down 12 minutes with a pod: pages after 5. The pod deleted meanwhile cannot finish terminating while its node is down; the node's kubelet finishing it is no stuck pod.",
  },
  {
    story: "init-crash-young-nodes",
    source: "controllers",
    threads: ["Deployment/shop/api: announce InitContainerFailed, resolve InitContainerFailed"],
    resolvesWithin: 300,
    why: "Issue 28 (4). The init container's failure is the cause the workload's and the Service's symptoms join; it names the incident from its announcement on.",
  },
  {
    story: "readiness-only",
    source: "controllers",
    threads: ["Deployment/shop/search: announce ReadinessProbeFailing, resolve ReadinessProbeFailing"],
    resolvesWithin: 120,
    why: "The Service without ready endpoints waits for the pods' probe failures (at most 2 minutes), which then name the incident.",
  },
  {
    story: "crash-fixed-in-place",
    source: "controllers",
    threads: ["Deployment/shop/api: announce CrashLoopBackOff, resolve CrashLoopBackOff"],
    resolvesWithin: IN_PLACE,
    why: "One pod of three: a crash loop, not an outage. Fixed in place, it resolves once the next run outlasts the back-off.",
  },
  {
    story: "statefulset-oom",
    source: "controllers",
    threads: ["StatefulSet/shop/ledger: announce OOMKilled, resolve OOMKilled"],
    resolvesWithin: 300 + 3_600 + 300,
    why: "An OOM kill is remembered for an hour after the last one (docs/reasons.md), so the resolve comes an hour after the last kill.",
  },
  {
    story: "dependency-refused",
    source: "controllers",
    threads: ["Endpoint//orders-db.shop:5432: announce DependencyUnreachable, resolve DependencyUnreachable"],
    resolvesWithin: IN_PLACE,
    why: "The crash names the in-cluster Service it dials: the incident is rooted at that endpoint, even for one workload.",
  },
  {
    story: "secret-env-missing",
    source: "controllers",
    threads: ["Secret/shop/db-credentials: announce SecretMissing, resolve SecretMissing"],
    resolvesWithin: 180,
    why: "The missing Secret is told as soon as the Deployment's pods name it, with the pods it stops (issue 52: counted from its first message, so their CreateContainerConfigError is no update saying only that pods are affected). They start once it exists.",
  },
  {
    story: "rollout-unschedulable",
    source: "controllers",
    threads: ["Deployment/shop/web: announce FailedScheduling, resolve FailedScheduling"],
    resolvesWithin: 240,
    why: "The old pods keep serving: the new pod that cannot be scheduled is the problem, told after its 3-minute hold.",
  },
  {
    story: "daemonset-image-pull",
    source: "controllers",
    threads: ["DaemonSet/shop/node-agent: announce ImagePullBackOff, resolve ImagePullBackOff"],
    resolvesWithin: 300,
    why: "The rollout stops at its first pod that cannot pull; a new tag finishes it.",
  },
  {
    story: "job-fails-then-deleted",
    source: "controllers",
    threads: [
      "Job/shop/migrate: announce ContainerExitedNonZero, update ContainerExitedNonZero, resolve ContainerExitedNonZero",
    ],
    resolvesWithin: 120,
    why: "The first failed attempt is told; that the Job gave up is news after the cooldown; deleting the Job ends it.",
  },
  {
    story: "node-lost-evicted",
    source: "controllers",
    threads: ["Node//worker-3: announce NodeLost, update NodeLost, resolve NodeLost"],
    resolvesWithin: 180,
    why: "Down 12 minutes: its pod is evicted and replaced elsewhere (the Service keeps serving), it pages after 5 minutes, and it resolves when it is Ready and the evicted pod is gone.",
  },
  {
    story: "cronjob-failing-runs",
    source: "controllers",
    threads: ["CronJob/shop/report: announce ContainerExitedNonZero, resolve ContainerExitedNonZero"],
    resolvesWithin: 180,
    why: "Issue 40 (2). Every run fails; whichever of a run's Job and pods the cache holds — a Job deleted by the history limit before its pods, a pod seen before its Job — the run is the CronJob's: one thread, never one of the run's own. The first run after the fix succeeds, which makes the failed runs kept in history the past.",
  },
  {
    story: "liveness-kill-loop",
    source: "controllers",
    threads: ["Deployment/shop/api: announce CrashLoopBackOff, resolve CrashLoopBackOff"],
    mentions: { "Deployment/shop/api": ["its liveness probe failed (Liveness probe failed:"] },
    resolvesWithin: IN_PLACE,
    why: "Issue 40 (3). The kubelet's Unhealthy and Killing events name the cause of the restarts, whichever run of the container they concerned: the announcement says the liveness probe killed it, not what exit 137 usually means.",
  },
  {
    story: "pinned-to-lost-node",
    source: "controllers",
    threads: ["Node//worker-2: announce NodeLost, update NodeLost, resolve NodeLost"],
    resolvesWithin: 180,
    why: "Issue 40 (4). The evicted pod's replacement cannot be scheduled only because the one node it may run on is lost: that is the node's incident (it pages after 5 minutes), never a FailedScheduling one beside it.",
  },
  {
    story: "in-cluster-database-refused",
    source: "controllers",
    threads: [
      "StatefulSet/shop/postgres: announce CrashLoopBackOff, update CrashLoopBackOff, resolve CrashLoopBackOff",
    ],
    mentions: { "StatefulSet/shop/postgres": ["3 workloads failing on it"] },
    resolvesWithin: IN_PLACE,
    why: "Issue 40 (5). The clients are refused at the ClusterIP of a Service whose only backend is the crashing database: their failures are its doing. Told once it crash-loops; that three workloads now fail on it is news, told when the cooldown ends.",
  },
  // Issue 50: stories written for real pods, told on the real node too.
  {
    story: "crash-rollout",
    source: "controllers",
    threads: ["Deployment/shop/api: announce CrashLoopBackOff, resolve CrashLoopBackOff"],
    mentions: { "Deployment/shop/api": ["open /etc/api/config.yaml: no such file or directory"] },
    resolvesWithin: 240,
    why: "A crash loop from its first start, told with what the process printed; the Service joins it. The rollout's pods run: resolved once they are available.",
  },
  {
    story: "oom-limit-raised",
    source: "controllers",
    threads: ["Deployment/shop/worker: announce OOMKilled, resolve OOMKilled"],
    mentions: { "Deployment/shop/worker": ["memory limit 20Mi"] },
    resolvesWithin: 240,
    why: "Killed by its memory limit on every start; the rollout that raises the limit replaces the pod, whose new container has no kill to remember.",
  },
  {
    story: "image-pull-fixed",
    source: "controllers",
    threads: ["Deployment/shop/cart: announce ImagePullBackOff, resolve ImagePullBackOff"],
    resolvesWithin: 240,
    why: "The rollout's new pod cannot pull (ErrImagePull, then ImagePullBackOff) while the old ones serve; told after its 2-minute hold. The next rollout's pods run.",
  },
  {
    story: "init-fails",
    source: "controllers",
    threads: ["Deployment/shop/api: announce InitContainerFailed, resolve InitContainerFailed"],
    resolvesWithin: 240,
    why: "The init container's failure names the incident; the workload without replicas is its symptom. A rollout with an init step that succeeds ends it.",
  },
  {
    story: "configmap-key-missing",
    source: "controllers",
    threads: ["ConfigMap/shop/api-config: announce ConfigMapMissing, resolve ConfigMapMissing"],
    mentions: { "ConfigMap/shop/api-config": ["has no key level"] },
    resolvesWithin: 180,
    why: "The ConfigMap exists but not the key the pods' environment names (CreateContainerConfigError): the ConfigMap is the root of the pods it stops. Once the key is there, the kubelet's next retry starts them.",
  },
  {
    story: "dependency-crash-loop",
    source: "controllers",
    threads: [
      "StatefulSet/shop/postgres: announce CrashLoopBackOff, update CrashLoopBackOff, resolve CrashLoopBackOff",
    ],
    mentions: { "StatefulSet/shop/postgres": ["2 workloads failing on it"] },
    resolvesWithin: IN_PLACE,
    why: "Issue 50: the clients dial the database's pod IP, which is what its headless Service's name resolves to: their failures are its doing, one incident rooted at the StatefulSet. That two workloads now fail on it is news, told when the cooldown ends. Repaired in place, it and its clients start again after their back-off.",
  },
  {
    story: "healthy-churn",
    source: "controllers",
    threads: [],
    why: "A rollout, scaling up and down, a Job that completes and a pod deleted gracefully: nothing fails, nothing is told.",
  },
  {
    story: "kubelet-restart",
    source: "controllers",
    threads: ["Deployment/shop/batch: announce CrashLoopBackOff"],
    fixes: { "Deployment/shop/batch": Number.POSITIVE_INFINITY },
    why: "Issue 50: a kubelet restart is not a reboot: the node stays Ready and its containers run on. The crash loop told before is neither told again nor resolved, whatever the restart resets (its back-off, its previous container's log); the healthy pods are no news.",
  },
  {
    story: "node-lost-kubelet-stopped",
    source: "controllers",
    threads: [
      "Deployment/shop/batch: announce CrashLoopBackOff",
      "Node//worker-1: announce NodeLost, update NodeLost, resolve NodeLost",
    ],
    fixes: { "Deployment/shop/batch": Number.POSITIVE_INFINITY },
    mentions: { "Node//worker-1": ["(its Lease)"] },
    resolvesWithin: 240,
    why: "Issue 50: lost for 7.5 minutes, the node pages after 5 (the update), its evicted web pods' replacements having nowhere to go; it resolves once it is Ready and web runs again. The crash loop that began minutes before the loss keeps its own thread: never part of the node's incident, never resolved by its return. The node's heartbeat is its Lease's last renewal.",
  },
  {
    story: "pinned-slow-start",
    source: "controllers",
    threads: ["Node//worker-2: announce NodeLost, update NodeLost, resolve NodeLost"],
    notBack: ["Node//worker-2"],
    resolvesWithin: 360,
    why: "Issue 52 (6). The node's incident waits for its pods' return at most 5 minutes, then resolves saying what is not back; the pinned Deployment, ready moments later, is judged from that resolve: never announced as ReadinessProbeFailing in the second the node resolves and resolved seconds later.",
  },
  {
    story: "image-typo-node-lost",
    source: "controllers",
    threads: [
      "Deployment/shop/cart: announce ImagePullBackOff, resolve ImagePullBackOff",
      "Node//worker-2: announce NodeLost, update NodeLost, resolve NodeLost",
    ],
    fixes: { "Node//worker-2": 570 },
    resolvesWithin: 360,
    why: "Issue 52 (5). An image that does not exist is evidence of its own: the pull failure that began before its node was lost stays its own incident, whether it was told before the loss or only during it, never folded into the node's (no \"now part of\"); the node's incident names what it took down, and resolves once it is back; cart's once its tag is fixed.",
  },
];

/**
 * What the trust stories (src/sim/stories/trust.ts: mon starting late, a silence in its configuration) tell,
 * judged as the catalogue's are; kept apart because each needs a daemon of its own.
 */
export const TRUST_EXPECTATIONS: readonly TimedExpectation[] = [
  {
    story: "failing-before-mon",
    source: "controllers",
    threads: [
      "Deployment/shop/billing: announce CrashLoopBackOff, resolve CrashLoopBackOff",
      "Deployment/shop/orders: announce CrashLoopBackOff, resolve CrashLoopBackOff",
      "Deployment/shop/payments: announce CrashLoopBackOff, resolve CrashLoopBackOff",
      "Deployment/shop/search: announce CrashLoopBackOff, resolve CrashLoopBackOff",
    ],
    resolvesWithin: 480,
    why: "Issue 52 (1). Three of five Deployments crash-loop when mon starts: their onset is unknown, so they are no namespace that failed at once — the startup summary names each, and each resolves on its own. payments, which begins after the start, is told on its own within its hold, never folded into a summary of what was there before.",
  },
  {
    story: "silenced-in-group",
    source: "controllers",
    threads: [
      'Error//fatal: password authentication failed for user "sync": announce SharedError, resolve SharedError',
      "Deployment/shop/report-b: announce CrashLoopBackOff, resolve CrashLoopBackOff",
    ],
    mentions: { 'Error//fatal: password authentication failed for user "sync"': ["2 workloads"] },
    unsaid: ["sync-a", "report-a", "203.0.113.50:5432: unreachable"],
    resolvesWithin: 480,
    why: "Issue 52 (3). A silenced workload is no member of a group: the shared error names and counts sync-b and sync-c only, and one workload left failing on the outside host makes no endpoint incident, so report-b is told as itself. No message names sync-a or report-a.",
  },
];

/**
 * What the control plane's stories (src/sim/stories/control-plane.ts: every kubelet's heartbeat stopping at
 * once) tell, on the simulator only: on the shared real control plane a story's nodes are a few of many.
 */
export const CONTROL_PLANE_EXPECTATIONS: readonly TimedExpectation[] = [
  {
    story: "heartbeat-gap-short",
    source: "controllers",
    threads: [],
    why: "Issue 53 (2). Every node Unknown together is the control plane's or the network's doing, held a minute: the gap heals within it (the kubelets are back before the nodes have been Unknown a minute), so nothing is told — never three node losses announced and resolved seconds later (before: a roll-up of three NodeLost 0–2 s after they went Unknown, resolved 12–30 s later).",
  },
  {
    story: "heartbeat-gap-long",
    source: "controllers",
    threads: ["ControlPlane//node-heartbeats: announce NodeHeartbeatGap, resolve NodeHeartbeatGap"],
    mentions: { "ControlPlane//node-heartbeats": ["heartbeats stopped on 3 nodes at once"] },
    resolvesWithin: 360,
    why: "Issue 53 (2). Every node Unknown together for minutes: one incident for the control plane or the network to it, naming the three nodes, told once the gap's minute has passed; never a node loss. It resolves once the nodes are Ready again and their pods back.",
  },
];
