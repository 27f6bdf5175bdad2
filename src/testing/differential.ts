import { connectKube } from "../kube/connection.ts";
import { LineSplitter } from "../kube/lines.ts";
import type { StoryCluster } from "../sim/stories/cluster.ts";
import { deployment, fate, NS, service, type Story } from "../sim/stories/story.ts";

/**
 * The simulator proven against the real control plane (issue 40): one scripted life of a namespace — a
 * Deployment scaled and rolled out behind a Service, a StatefulSet, a DaemonSet, a Job that completes and one
 * that fails, a CronJob whose runs fail, a node lost long enough for its pods to be evicted and then back, the
 * Deployment deleted, the namespace deleted — told to `mon sim` and to kube-apiserver with the real controllers
 * (and the kubelet stand-in), each watched as mon watches. What each watcher saw is reduced to facts
 * (`factsOf`): event kinds and order per object, owner references, conditions and status, EndpointSlice
 * endpoints, node taints and Ready marking, evictions, garbage collection, namespace deletion, bookmarks and
 * `410 Gone`. The differential test compares the two sets of facts with the differences documented in
 * docs/simulator.md.
 */
export const DIFFERENTIAL_SCRIPT: Story = {
  name: "differential",
  description: "a namespace's life on both the simulator and the real control plane",
  nodes: 3,
  steps: [
    {
      t: 0,
      say: "kubectl apply: Service web, Deployment web (2 pods, readiness probe), StatefulSet db (2), DaemonSet agent",
      run: (cluster) => {
        cluster.apply(service("web"));
        cluster.apply(web("registry.example/web:1.0", 2));
        cluster.apply(statefulSet());
        cluster.apply(daemonSet());
      },
    },
    {
      t: 25,
      say: "kubectl scale deployment web --replicas=3",
      run: (cluster) => cluster.apply(web("registry.example/web:1.0", 3)),
    },
    {
      t: 45,
      say: "kubectl set image deployment/web web=registry.example/web:1.1",
      run: (cluster) => cluster.apply(web("registry.example/web:1.1", 3)),
    },
    {
      t: 75,
      say: "kubectl apply: Job ok (completes), Job broken (fails, backoffLimit 1), CronJob report (every minute, fails)",
      run: (cluster) => {
        cluster.apply(job("ok", {}));
        cluster.apply(job("broken", fate("fail", "Error: no such table\n")));
        cluster.apply(cronJob());
      },
    },
    { t: 150, say: "worker-3's kubelet stops posting status", run: (cluster) => cluster.stopKubelet("worker-3") },
    { t: 330, say: "worker-3's kubelet is back", run: (cluster) => cluster.startKubelet("worker-3") },
    {
      t: 360,
      // The CronJob suspended well before the namespace goes: no run is still running when the deletion ends it,
      // which would depend on the second of the CronJob's minute the deletion falls on.
      say: "kubectl delete deployment web; kubectl patch cronjob report: suspend",
      run: (cluster) => {
        cluster.remove("deployments", "web", "apps");
        const suspended = cronJob();
        cluster.apply({ ...suspended, spec: { ...suspended.spec, suspend: true } });
      },
    },
  ],
  lengthSeconds: 400,
  quick: { at: [0, 25, 45, 75, 150, 330, 360], lengthSeconds: 400 },
};

/** A difference between the simulator and the real control plane the differential finds, and why mon is not affected. */
export interface KnownDifference {
  /** The fact, as `factsOf` says it. */
  readonly fact: string;
  /** Which server shows it. */
  readonly only: "simulator" | "real";
  readonly why: string;
}

/**
 * The differences the differential test finds and keeps (docs/simulator.md "Compared with the real control
 * plane"): any other one fails the test, so it is fixed in the simulator or added here, with why.
 */
export const KNOWN_DIFFERENCES: readonly KnownDifference[] = [
  {
    fact: "Node worker-1: Ready=True (KubeletReady)",
    only: "real",
    why: "A real kubelet posts its node's status every minute (and renews its Lease every 10 s), so a healthy node changes; the simulator's nodes change only when something happens to them. mon reads the Ready condition and the taints, which are the same on both.",
  },
  {
    fact: "Node worker-2: Ready=True (KubeletReady)",
    only: "real",
    why: "As for worker-1: heartbeats of a healthy node.",
  },
  {
    fact: "watch: from the script's first resourceVersion, opened after it: 410 Gone",
    only: "real",
    why: "kube-apiserver's watch cache keeps a few minutes of changes (etcd is compacted every 5 minutes); the simulator keeps the last 10,000. A watch from a resourceVersion several minutes old gets 410 on the real server and the changes on the simulator. mon relists on 410 either way; the simulator's 410 is tested by compacting on purpose (src/kube/informer.test.ts).",
  },
  {
    fact: "Event Warning FailedDelete about a CronJob (from cronjob-controller)",
    only: "real",
    why: "Sometimes: the CronJob controller, removing a run beyond failedJobsHistoryLimit that a previous sync already deleted (its informer not yet told), gets NotFound and says FailedDelete although the run is gone (kubernetes/kubernetes#141317). It depends on the controller's timing, so some runs show it and others do not. mon makes no finding of FailedDelete; the run's own Job and the CronJob's status are what it reads.",
  },
  {
    fact: "watch: from the script's first resourceVersion, opened after it: replayed",
    only: "simulator",
    why: "The other side of the 410 above.",
  },
];

/** The kinds the differential watches, with their collection paths. */
export const DIFFERENTIAL_KINDS: readonly (readonly [string, string])[] = [
  ["Pod", "/api/v1/pods"],
  ["Node", "/api/v1/nodes"],
  ["Namespace", "/api/v1/namespaces"],
  ["Service", "/api/v1/services"],
  ["EndpointSlice", "/apis/discovery.k8s.io/v1/endpointslices"],
  ["Deployment", "/apis/apps/v1/deployments"],
  ["ReplicaSet", "/apis/apps/v1/replicasets"],
  ["StatefulSet", "/apis/apps/v1/statefulsets"],
  ["DaemonSet", "/apis/apps/v1/daemonsets"],
  ["Job", "/apis/batch/v1/jobs"],
  ["CronJob", "/apis/batch/v1/cronjobs"],
  ["Event", "/api/v1/events"],
  // A kind nothing in the script changes: whether its watch gets bookmarks.
  ["PersistentVolume", "/api/v1/persistentvolumes"],
];

/** One watch event as a watcher received it: its kind, type, object and the second (since the start) it came. */
export interface SeenEvent {
  readonly kind: string;
  readonly type: string;
  readonly at: number;
  readonly object: Record<string, any>;
}

/** A running set of watches on one API server. */
export interface Recording {
  /** Everything seen so far. */
  events(): SeenEvent[];
  /** Opens a watch of `path` from `resourceVersion` and says how it answered: `410` or the count of events. */
  watchFrom(path: string, resourceVersion: string): Promise<string>;
  /** The current resourceVersion of a list of `path`. */
  resourceVersion(path: string): Promise<string>;
  stop(): void;
}

/**
 * Watches every kind of DIFFERENTIAL_KINDS on the API server of `kubeconfigText` as mon's informers do (from a
 * list's resourceVersion, bookmarks allowed), from now on, recording each event with its second.
 */
export async function record(kubeconfigText: string): Promise<Recording> {
  const connection = await connectKube({ kubeconfigText });
  const began = Date.now();
  const seen: SeenEvent[] = [];
  const abort = new AbortController();
  for (const [kind, path] of DIFFERENTIAL_KINDS) {
    const list = await connection.getJson<{ metadata: { resourceVersion: string } }>(`${path}?limit=1`);
    void (async () => {
      const response = await connection.request(
        `${path}?watch=1&allowWatchBookmarks=true&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=3600`,
        { signal: abort.signal, stream: true },
      );
      const reader = response.body!.getReader();
      const lines = new LineSplitter();
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        lines.push(chunk.value, (line) => {
          const event = JSON.parse(line) as { type: string; object: Record<string, any> };
          seen.push({ kind, type: event.type, object: event.object, at: (Date.now() - began) / 1000 });
        });
      }
    })().catch(() => {});
  }
  return {
    events: () => seen,
    async watchFrom(path, resourceVersion) {
      const response = await connection.request(
        `${path}?watch=1&resourceVersion=${encodeURIComponent(resourceVersion)}&timeoutSeconds=1`,
      );
      if (response.status === 410) return "410";
      const text = await response.text();
      if (!response.ok) return `HTTP ${response.status}`;
      const events = text
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type: string; object: any });
      const expired = events.find((e) => e.type === "ERROR" && e.object?.code === 410);
      return expired ? "410" : `${events.length} events`;
    },
    async resourceVersion(path) {
      return (await connection.getJson<{ metadata: { resourceVersion: string } }>(`${path}?limit=1`)).metadata
        .resourceVersion;
    },
    stop: () => abort.abort(),
  };
}

/**
 * What a watcher saw, as facts that do not depend on names the servers generate, on their resourceVersions or
 * on timing: `namespace` is the script's namespace and its nodes are `<nodePrefix>-worker-n` (`worker-n` without
 * a prefix). Workloads keep
 * their names; ReplicaSets are `web-rs<k>` and CronJob runs `report-run` in order of creation; pods and
 * EndpointSlices are told by their owner. Facts are sorted and unique.
 */
export function factsOf(
  events: readonly SeenEvent[],
  namespace: string,
  nodePrefix: string,
  lost: { readonly until: number } = { until: lostUntil() },
): string[] {
  const facts = new Set<string>();
  const fact = (text: string) => facts.add(text);
  /** The script's node `worker-n` on this server. */
  const prefixed = (name: string) => (nodePrefix ? `${nodePrefix}-${name}` : name);
  const nodeName = (name: string) =>
    nodePrefix && name.startsWith(`${nodePrefix}-`) ? name.slice(nodePrefix.length + 1) : name;
  const names = new Map<string, string>();
  const rsCount = new Map<string, number>();
  const nameOf = (o: Record<string, any>): string => {
    const uid = o.metadata?.uid as string;
    const known = names.get(uid);
    if (known) return known;
    const owner = (o.metadata?.ownerReferences ?? []).find((r: any) => r.controller);
    let name = String(o.metadata?.name ?? "");
    if (o.kind === "ReplicaSet" && owner) {
      const k = (rsCount.get(owner.name) ?? 0) + 1;
      rsCount.set(owner.name, k);
      name = `${owner.name}-rs${k}`;
    } else if (o.kind === "Job" && owner?.kind === "CronJob") name = `${owner.name}-run`;
    else if (o.kind === "Pod" && owner && owner.kind !== "StatefulSet")
      name = `pod of ${names.get(owner.uid) ?? owner.name}`;
    else if (o.kind === "EndpointSlice") name = `slice of ${o.metadata?.labels?.["kubernetes.io/service-name"] ?? "?"}`;
    else if (o.kind === "Node") name = nodeName(name);
    else if (o.kind === "Namespace") name = "of the script";
    names.set(uid, name);
    return name;
  };
  const mine = (e: SeenEvent) =>
    e.kind === "Node"
      ? /^worker-\d+$/.test(nodeName(String(e.object.metadata?.name ?? "")))
      : e.kind === "Namespace"
        ? e.object.metadata?.name === namespace
        : e.object.metadata?.namespace === namespace;
  const firstType = new Map<string, string>();
  const lastType = new Map<string, string>();
  for (const e of events) {
    if (e.type === "BOOKMARK") continue;
    if (!mine(e) || e.kind === "PersistentVolume") continue;
    const o = e.object;
    const kind = e.kind;
    if (kind === "Event") {
      const about = o.involvedObject ?? {};
      const from = o.source?.component ?? o.reportingComponent;
      // The kubelet's Events are the stand-in's, the same code as the simulator's kubelet: not compared.
      if (!about.kind || from === "kubelet") continue;
      fact(`Event ${o.type} ${o.reason} about a ${about.kind} (from ${from})`);
      continue;
    }
    const name = nameOf(o);
    const key = `${kind} ${name}`;
    if (!firstType.has(o.metadata.uid)) firstType.set(o.metadata.uid, `${kind} ${e.type}`);
    lastType.set(o.metadata.uid, `${kind} ${e.type}`);
    const owner = (o.metadata?.ownerReferences ?? []).find((r: any) => r.controller);
    if (owner) fact(`${key}: controlled by ${owner.kind} (blockOwnerDeletion ${owner.blockOwnerDeletion === true})`);
    if (e.type === "DELETED") fact(`${key}: deleted`);
    if (o.metadata?.deletionTimestamp && kind !== "Pod") fact(`${key}: marked for deletion before it went`);
    for (const c of o.status?.conditions ?? [])
      if (kind !== "Pod" && kind !== "Node")
        fact(`${key}: condition ${c.type}=${c.status}${c.reason ? ` (${c.reason})` : ""}`);
    switch (kind) {
      case "Deployment":
      case "ReplicaSet":
      case "StatefulSet":
        if (o.status?.readyReplicas === o.spec?.replicas && o.spec?.replicas > 0)
          fact(`${key}: reached ${o.spec.replicas} ready replicas`);
        break;
      case "DaemonSet":
        if (o.status?.numberReady > 0 && o.status?.numberReady === o.status?.desiredNumberScheduled)
          fact(`${key}: every scheduled pod ready (${o.status.desiredNumberScheduled})`);
        break;
      case "Job":
        break;
      case "CronJob":
        if ((o.status?.active ?? []).length > 0) fact(`${key}: a run active`);
        if (o.status?.lastScheduleTime) fact(`${key}: lastScheduleTime set`);
        break;
      case "Pod": {
        const ready = (o.status?.conditions ?? []).find((c: any) => c.type === "Ready")?.status ?? "-";
        const states = (o.status?.containerStatuses ?? [])
          .map((s: any) => Object.keys(s.state ?? {})[0] ?? "?")
          .join(",");
        fact(`${key}: phase ${o.status?.phase ?? "-"}, Ready=${ready}${states ? `, containers ${states}` : ""}`);
        const onLost = o.spec?.nodeName === prefixed("worker-3");
        if (onLost && ready === "False" && e.type === "MODIFIED") fact(`${key}: on worker-3, marked not ready`);
        if (onLost && o.metadata?.deletionTimestamp && e.at < lost.until)
          fact(`${key}: on worker-3, marked for deletion while the node was lost`);
        if (o.metadata?.deletionTimestamp) fact(`${key}: terminating`);
        for (const t of o.spec?.tolerations ?? [])
          if (t.tolerationSeconds !== undefined)
            fact(`${key}: tolerates ${t.key}:${t.effect} for ${t.tolerationSeconds} s`);
        break;
      }
      case "EndpointSlice":
        for (const ep of o.endpoints ?? [])
          fact(
            `${key}: endpoint ready=${ep.conditions?.ready} serving=${ep.conditions?.serving} terminating=${ep.conditions?.terminating}`,
          );
        break;
      case "Node": {
        const ready = (o.status?.conditions ?? []).find((c: any) => c.type === "Ready");
        if (ready) fact(`${key}: Ready=${ready.status}${ready.reason ? ` (${ready.reason})` : ""}`);
        for (const t of o.spec?.taints ?? []) fact(`${key}: taint ${t.key}:${t.effect}`);
        break;
      }
      case "Namespace":
        fact(`${key}: phase ${o.status?.phase}`);
        break;
    }
  }
  for (const t of firstType.values()) fact(`first event of a ${t}`);
  for (const t of lastType.values()) fact(`last event of a ${t}`);
  return [...facts].sort();
}

// --- internal ---

/** The second the script's lost node comes back. */
function lostUntil(): number {
  return DIFFERENTIAL_SCRIPT.steps.find((s) => s.say.includes("is back"))?.t ?? Number.POSITIVE_INFINITY;
}

/** Pinned where the node loss does not move them, so both servers' schedulers place them alike. */
const onWorker = (n: number) => ({ nodeSelector: { "kubernetes.io/hostname": `worker-${n}` } });

function web(image: string, replicas: number) {
  return deployment("web", image, replicas, {
    spec: {
      containers: [
        {
          name: "web",
          image,
          readinessProbe: { httpGet: { path: "/ready", port: 8080 }, periodSeconds: 5 },
        },
      ],
      // Evicted 30 s after its node is marked unreachable, so the script sees an eviction.
      tolerations: [
        { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 30 },
        { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 30 },
      ],
    },
  });
}

function statefulSet() {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { namespace: NS, name: "db" },
    spec: {
      replicas: 2,
      serviceName: "db",
      selector: { matchLabels: { app: "db" } },
      template: {
        metadata: { labels: { app: "db" } },
        spec: { ...onWorker(1), containers: [{ name: "db", image: "registry.example/db:16" }] },
      },
    },
  };
}

function daemonSet() {
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { namespace: NS, name: "agent" },
    spec: {
      selector: { matchLabels: { app: "agent" } },
      template: {
        metadata: { labels: { app: "agent" } },
        spec: { containers: [{ name: "agent", image: "registry.example/agent:2" }] },
      },
    },
  };
}

function job(name: string, annotations: Record<string, string>) {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { namespace: NS, name },
    spec: {
      backoffLimit: 1,
      template: {
        metadata: { annotations },
        spec: { ...onWorker(2), restartPolicy: "Never", containers: [{ name, image: "registry.example/job:1" }] },
      },
    },
  };
}

function cronJob() {
  return {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: { namespace: NS, name: "report" },
    spec: {
      schedule: "* * * * *",
      failedJobsHistoryLimit: 1,
      jobTemplate: {
        spec: {
          backoffLimit: 0,
          template: {
            metadata: { annotations: fate("fail") },
            spec: {
              ...onWorker(2),
              restartPolicy: "Never",
              containers: [{ name: "report", image: "registry.example/report:3" }],
            },
          },
        },
      },
    },
  };
}

/** Runs the script's steps on `cluster` at their seconds (real time), waiting for each step's writes. */
export async function runScript(
  cluster: StoryCluster & { flushed?: () => Promise<void> },
  script: Story = DIFFERENTIAL_SCRIPT,
): Promise<void> {
  const began = Date.now();
  for (const step of script.steps) {
    const wait = began + step.t * 1000 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    step.run(cluster);
    await cluster.flushed?.();
  }
  const rest = began + script.lengthSeconds * 1000 - Date.now();
  if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
}
