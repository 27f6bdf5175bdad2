import type { KubeConnection } from "../../kube/connection.ts";
import { type StoryCluster, type StorySchedule, stepAtOf } from "../stories/cluster.ts";
import type { KubeObject } from "../store.ts";

/** Where a story runs on a shared real cluster: its namespace, its nodes' names, and what else it is given. */
export interface StoryPlace {
  /** The story's namespace (`shop` in the story). */
  readonly namespace: string;
  /** A story's node `worker-N` is `<nodePrefix>-worker-N` here, unless `nodes` names it. */
  readonly nodePrefix: string;
  /** The story's nodes by name (`worker-1` → `localhost`): where it runs on nodes that are not its own. */
  readonly nodes?: Readonly<Record<string, string>>;
  /** Label every node of the story carries, and every pod of the story is pinned to (`key=value`). */
  readonly nodeLabel: readonly [string, string];
  /** ClusterIPs the story names, mapped to free addresses of the real Service range. */
  readonly clusterIps: Readonly<Record<string, string>>;
  /**
   * Addresses for the story's Services that name no ClusterIP, given in order of first write. With them the
   * API server allocates no address at random, which could take one another story names (a 422 "provided IP
   * is already allocated" for it, and a Service of the wrong story at its address).
   */
  readonly serviceIps?: readonly string[];
}

/** The kubelets a story's nodes run: the stand-in's (src/sim/standin), or a real node's. */
export interface StoryKubelets {
  stop(node: string): void | Promise<void>;
  start(node: string): Promise<void>;
  restart(node: string): Promise<void>;
}

/**
 * The taint the real node carries (NoSchedule, src/testing/real-node.ts), so that only pods that tolerate it — the
 * stories placed there — are scheduled to it.
 */
export const REAL_NODE_TAINT = "stories.mon.io/real-node";

/** The annotations by which the simulated kubelet is told what a container does (`sim.mon.io/…`). */
const SIMULATED = /^sim\.mon\.io\//;

/** Writes in flight and their failures, for the runner that waits for them after each step. */
export interface RealStoryCluster extends StoryCluster {
  /** Resolves when every write the story made so far has been answered. */
  flushed(): Promise<void>;
  /** Writes the server refused, with why. */
  failures(): readonly string[];
}

/** The kinds a story writes, by kind: API path prefix and plural. */
const KINDS: Readonly<Record<string, { prefix: string; plural: string; namespaced: boolean }>> = {
  Namespace: { prefix: "/api/v1", plural: "namespaces", namespaced: false },
  Service: { prefix: "/api/v1", plural: "services", namespaced: true },
  ConfigMap: { prefix: "/api/v1", plural: "configmaps", namespaced: true },
  Secret: { prefix: "/api/v1", plural: "secrets", namespaced: true },
  Pod: { prefix: "/api/v1", plural: "pods", namespaced: true },
  PersistentVolumeClaim: { prefix: "/api/v1", plural: "persistentvolumeclaims", namespaced: true },
  PersistentVolume: { prefix: "/api/v1", plural: "persistentvolumes", namespaced: false },
  Deployment: { prefix: "/apis/apps/v1", plural: "deployments", namespaced: true },
  StatefulSet: { prefix: "/apis/apps/v1", plural: "statefulsets", namespaced: true },
  DaemonSet: { prefix: "/apis/apps/v1", plural: "daemonsets", namespaced: true },
  Job: { prefix: "/apis/batch/v1", plural: "jobs", namespaced: true },
  CronJob: { prefix: "/apis/batch/v1", plural: "cronjobs", namespaced: true },
  StorageClass: { prefix: "/apis/storage.k8s.io/v1", plural: "storageclasses", namespaced: false },
};

/**
 * A story's cluster on a real control plane shared with other stories (issue 40): the story's objects are moved
 * to its own namespace and nodes (`place`), every pod it creates is pinned to its nodes, ClusterIPs it names are
 * given free addresses of the real Service range (and the text its containers print says those), and its
 * writes go to the API server in order. `pods` answers what the cluster runs now (a shared pod cache);
 * `kubelets` stop and start its nodes' kubelets; `schedule` is when this telling runs its steps.
 * On a real node (`realNode`, issue 50) a container's behaviour is its command's alone: the simulated kubelet's
 * annotations (`sim.mon.io/…`) are left out of every object and a step's `annotatePod` writes nothing.
 */
export function realStoryCluster(options: {
  connection: KubeConnection;
  kubelets: StoryKubelets;
  place: StoryPlace;
  pods: () => Iterable<KubeObject>;
  schedule?: StorySchedule;
  realNode?: boolean;
}): RealStoryCluster {
  const { connection, place } = options;
  const realNode = options.realNode === true;
  const failures: string[] = [];
  const serviceIps = new Map<string, string>();
  /** The address of a Service that names none: its own from the pool, the same on every write. */
  const serviceIp = (name: string): string | undefined => {
    if (!place.serviceIps) return undefined;
    let ip = serviceIps.get(name);
    if (!ip) {
      ip = place.serviceIps[serviceIps.size];
      if (!ip) throw new Error(`story Service ${name}: no address left for ${place.namespace}'s Services`);
      serviceIps.set(name, ip);
    }
    return ip;
  };
  let chain: Promise<unknown> = Promise.resolve();
  const queue = (what: string, write: () => Promise<void>) => {
    chain = chain.then(() =>
      write().catch((error: unknown) => {
        failures.push(`${what}: ${(error as Error).message}`);
      }),
    );
  };
  const node = (name: string) =>
    place.nodes?.[name] ?? (/^worker-\d+$/.test(name) ? `${place.nodePrefix}-${name}` : name);
  const text = (value: string) =>
    Object.entries(place.clusterIps).reduce((out, [from, to]) => out.replaceAll(from, to), value);
  const pathOf = (kind: string, name?: string) => {
    const k = KINDS[kind];
    if (!k) throw new Error(`a story on the real control plane does not write ${kind}`);
    const ns = k.namespaced ? `/namespaces/${place.namespace}` : "";
    return `${k.prefix}${ns}/${k.plural}${name ? `/${encodeURIComponent(name)}` : ""}`;
  };
  const send = async (method: string, path: string, body?: unknown, type = "application/json") => {
    const response = await connection.request(path, {
      method,
      headers: { "content-type": type },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const answer = await response.text();
    return { status: response.status, body: answer };
  };
  return {
    apply(object) {
      const placed = placeObject(object, place, node, text, serviceIp, realNode);
      queue(`apply ${placed.kind} ${placed.metadata.name}`, async () => {
        const path = pathOf(placed.kind, placed.metadata.name);
        const current = await send("GET", path);
        if (current.status === 404) {
          const created = await send("POST", pathOf(placed.kind), placed);
          if (created.status >= 300 && created.status !== 409)
            throw new Error(`HTTP ${created.status} ${created.body}`);
          return;
        }
        // kubectl apply replaces what the manifest sets: the spec (data), labels and annotations.
        const live = JSON.parse(current.body) as KubeObject;
        const next = {
          ...live,
          ...placed,
          metadata: {
            ...live.metadata,
            labels: placed.metadata.labels ?? live.metadata.labels,
            annotations: { ...live.metadata.annotations, ...placed.metadata.annotations },
          },
          status: live.status,
        };
        const updated = await send("PUT", path, next);
        if (updated.status >= 300) throw new Error(`HTTP ${updated.status} ${updated.body}`);
      });
    },
    podsOf(app) {
      return [...options.pods()]
        .filter(
          (p) =>
            p.metadata.namespace === place.namespace && p.metadata.labels?.app === app && !p.metadata.deletionTimestamp,
        )
        .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
    },
    annotatePod(name, annotations) {
      if (realNode && Object.keys(annotations).every((k) => SIMULATED.test(k))) return;
      const placed = Object.fromEntries(
        Object.entries(annotations).map(([k, v]) => [k, typeof v === "string" ? text(v) : v]),
      );
      queue(`annotate pod ${name}`, async () => {
        const r = await send(
          "PATCH",
          pathOf("Pod", name),
          { metadata: { annotations: placed } },
          "application/merge-patch+json",
        );
        if (r.status >= 300 && r.status !== 404) throw new Error(`HTTP ${r.status} ${r.body}`);
      });
    },
    remove(plural, name) {
      const kind = Object.entries(KINDS).find(([, k]) => k.plural === plural)?.[0];
      if (!kind) throw new Error(`a story on the real control plane does not delete ${plural}`);
      queue(`delete ${plural} ${name}`, async () => {
        // kubectl delete: background propagation, the garbage collector takes what the object owned.
        const r = await send("DELETE", `${pathOf(kind, name)}?propagationPolicy=Background`);
        if (r.status >= 300 && r.status !== 404) throw new Error(`HTTP ${r.status} ${r.body}`);
      });
    },
    bindClaim(name) {
      queue(`bind claim ${name}`, async () => {
        const claim = JSON.parse((await send("GET", pathOf("PersistentVolumeClaim", name))).body) as KubeObject;
        // A volume made for the claim, as a provisioner would: the PV controller binds them.
        const volume = {
          apiVersion: "v1",
          kind: "PersistentVolume",
          metadata: { name: `pv-${place.namespace}-${name}`.slice(0, 63) },
          spec: {
            capacity: { storage: claim.spec?.resources?.requests?.storage ?? "1Gi" },
            accessModes: claim.spec?.accessModes ?? ["ReadWriteOnce"],
            storageClassName: claim.spec?.storageClassName ?? "",
            persistentVolumeReclaimPolicy: "Delete",
            claimRef: { namespace: place.namespace, name, uid: claim.metadata.uid },
            csi: { driver: "csi.example.com", volumeHandle: `${place.namespace}-${name}` },
          },
        };
        const r = await send("POST", pathOf("PersistentVolume"), volume);
        if (r.status >= 300) throw new Error(`HTTP ${r.status} ${r.body}`);
      });
    },
    stopKubelet: (name) => queue(`stop kubelet ${name}`, async () => options.kubelets.stop(node(name))),
    startKubelet: (name) => queue(`start kubelet ${name}`, () => options.kubelets.start(node(name))),
    restartKubelet: (name) => queue(`restart kubelet ${name}`, () => options.kubelets.restart(node(name))),
    stepAt: (step) => {
      if (!options.schedule) throw new Error("this telling of the story has no schedule");
      return stepAtOf(options.schedule)(step);
    },
    flushed: () => chain.then(() => undefined),
    failures: () => failures,
  };
}

// --- internal ---

/** The story's object as it is written on the shared cluster (namespace, nodes, addresses moved; pods pinned). */
function placeObject(
  object: KubeObject,
  place: StoryPlace,
  node: (name: string) => string,
  text: (value: string) => string,
  serviceIp: (name: string) => string | undefined,
  realNode: boolean,
): KubeObject {
  const copy = structuredClone(object) as KubeObject;
  // On a real node nothing is told to a simulated kubelet: what a container does is its command's doing.
  const unsimulated = (meta: KubeObject | undefined) => {
    if (!realNode || !meta?.annotations) return;
    for (const k of Object.keys(meta.annotations)) if (SIMULATED.test(k)) delete meta.annotations[k];
    if (Object.keys(meta.annotations).length === 0) delete meta.annotations;
  };
  unsimulated(copy.metadata);
  if (KINDS[copy.kind]?.namespaced) copy.metadata = { ...copy.metadata, namespace: place.namespace };
  const pin = (podSpec: KubeObject | undefined) => {
    if (!podSpec) return;
    // The real node is tainted so that no other test's pod lands on it (src/testing/real-node.ts).
    if (realNode)
      podSpec.tolerations = [
        ...(podSpec.tolerations ?? []),
        { key: REAL_NODE_TAINT, operator: "Exists", effect: "NoSchedule" },
      ];
    const selector = { ...(podSpec.nodeSelector ?? {}) };
    if (selector["kubernetes.io/hostname"])
      selector["kubernetes.io/hostname"] = node(selector["kubernetes.io/hostname"]);
    selector[place.nodeLabel[0]] = place.nodeLabel[1];
    podSpec.nodeSelector = selector;
  };
  const annotate = (meta: KubeObject | undefined) => {
    for (const [k, v] of Object.entries(meta?.annotations ?? {}))
      if (typeof v === "string") meta!.annotations[k] = text(v);
  };
  if (copy.kind === "Pod") {
    pin(copy.spec);
    annotate(copy.metadata);
  }
  const template = copy.kind === "CronJob" ? copy.spec?.jobTemplate?.spec?.template : copy.spec?.template;
  if (template) {
    pin(template.spec);
    annotate(template.metadata);
    unsimulated(template.metadata);
  }
  if (copy.kind === "Service") {
    const ip = copy.spec?.clusterIP;
    if (ip && ip !== "None") {
      const given = place.clusterIps[ip];
      if (!given)
        throw new Error(`story Service ${copy.metadata.name} names ClusterIP ${ip}, which has no address here`);
      copy.spec.clusterIP = given;
      copy.spec.clusterIPs = [given];
    } else if (!ip && copy.spec?.type !== "ExternalName") {
      const own = serviceIp(copy.metadata.name);
      if (own) copy.spec = { ...copy.spec, clusterIP: own, clusterIPs: [own] };
    }
  }
  return copy;
}
