import type { KubeConnection } from "../../kube/connection.ts";
import { createInformer, type Informer } from "../../kube/informer.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { ControllerApi } from "../controllers/api.ts";
import { type KubeObject, timestamp } from "../store.ts";

/** The kinds the kubelet stand-in reads, with their collection paths on a real API server. */
const WATCHED: Readonly<Record<string, string>> = {
  Pod: "/api/v1/pods",
  Node: "/api/v1/nodes",
  ConfigMap: "/api/v1/configmaps",
  Secret: "/api/v1/secrets",
};

/** Where a kind's objects are written on a real API server. */
const PATHS: Readonly<Record<string, { prefix: string; plural: string }>> = {
  Pod: { prefix: "/api/v1", plural: "pods" },
  Node: { prefix: "/api/v1", plural: "nodes" },
  Event: { prefix: "/api/v1", plural: "events" },
  Lease: { prefix: "/apis/coordination.k8s.io/v1", plural: "leases" },
};

/**
 * The simulator's ControllerApi (src/sim/controllers/api.ts) over a real API server, so the simulator's kubelet
 * runs unchanged against kube-apiserver (issue 40): reads come from a cache kept by list+watch (Pods, Nodes,
 * ConfigMaps, Secrets), writes go to the server in the background, in order per object. `onChange` is called
 * after every watch event. Only what the kubelet writes is supported: pod and node status, pod deletion, Events.
 */
export interface RemoteApi extends ControllerApi {
  /** Resolves once every watched kind has been listed. */
  synced(): Promise<void>;
  /** Resolves when every write sent so far has been answered. */
  flushed(): Promise<void>;
  /** Writes that failed, with why (a test asserts there are none). */
  failures(): readonly string[];
  stop(): void;
}

/**
 * A RemoteApi over `connection`. `nodes` names the nodes whose pods it serves: `list("Pod")` answers only their
 * pods, so the stand-in never writes the status of a pod another kubelet owns. `clock` is the real clock.
 */
export function remoteApi(options: {
  connection: KubeConnection;
  clock: Clock;
  logger: Logger;
  nodes: () => ReadonlySet<string>;
  onChange: () => void;
}): RemoteApi {
  const { connection, clock, logger } = options;
  const cache = new Map<string, Map<string, KubeObject>>();
  const informers: Informer[] = [];
  const failures: string[] = [];
  /** Per object, the chain of its writes: each waits for the one before, as one kubelet's status manager does. */
  const chains = new Map<string, Promise<unknown>>();
  let pending = 0;
  let idle: (() => void)[] = [];
  /** Per pod uid: the status our last write asked for, and the status the server answered it with. */
  const written = new Map<string, { asked: string; answered: string }>();
  /** Events written, by involved object uid, reason and message: a repeat raises the count. */
  const events = new Map<string, { namespace: string; name: string; count: number }>();
  let eventSerial = 0;
  let stopped = false;

  for (const [kind, path] of Object.entries(WATCHED)) {
    const objects = new Map<string, KubeObject>();
    cache.set(kind, objects);
    const informer = createInformer({
      connection,
      kind: { kind, path },
      clock,
      logger,
      onEvent(type, object) {
        const key = `${object.metadata.namespace ?? ""}/${object.metadata.name}`;
        if (type === "DELETED") objects.delete(key);
        else objects.set(key, object);
        options.onChange();
      },
      onState: () => {},
    });
    informers.push(informer);
    informer.start();
  }

  const send = (key: string, what: string, path: string, init: RequestInit): Promise<KubeObject | undefined> => {
    pending++;
    const previous = chains.get(key) ?? Promise.resolve();
    const next = previous.then(async () => {
      if (stopped) return undefined;
      try {
        const response = await connection.request(path, init);
        const text = await response.text();
        // A pod deleted meanwhile (404) or already finished is no failure of the stand-in: a kubelet sees the same;
        // neither is an Event refused by a namespace being deleted (a real kubelet's are dropped the same way).
        const terminating = response.status === 403 && text.includes("because it is being terminated");
        if (!response.ok && response.status !== 404 && response.status !== 409 && !terminating) {
          failures.push(`${what}: HTTP ${response.status} ${text.slice(0, 300)}`);
          logger.warn(`kubelet stand-in: ${what}: HTTP ${response.status} ${text.slice(0, 300)}`);
        }
        return response.ok ? (JSON.parse(text) as KubeObject) : undefined;
      } catch (error) {
        if (!stopped) failures.push(`${what}: ${(error as Error).message}`);
        return undefined;
      } finally {
        pending--;
        if (pending === 0) {
          const waiting = idle;
          idle = [];
          for (const resolve of waiting) resolve();
        }
      }
    });
    chains.set(key, next);
    void next.then(() => {
      if (chains.get(key) === next) chains.delete(key);
    });
    return next;
  };

  const objectPath = (kind: string, namespace: string | undefined, name?: string, sub?: string) => {
    const p = PATHS[kind];
    if (!p) throw new Error(`the kubelet stand-in does not write ${kind}`);
    return `${p.prefix}${namespace ? `/namespaces/${namespace}` : ""}/${p.plural}${name ? `/${encodeURIComponent(name)}` : ""}${sub ? `/${sub}` : ""}`;
  };
  const json = (method: string, body: unknown, type = "application/json"): RequestInit => ({
    method,
    headers: { "content-type": type },
    body: JSON.stringify(body),
  });

  const api: RemoteApi = {
    now: () => clock.now(),
    list(kind, namespace) {
      const all = [...(cache.get(kind)?.values() ?? [])].filter(
        (o) => namespace === undefined || o.metadata.namespace === namespace,
      );
      if (kind !== "Pod") return all;
      const mine = options.nodes();
      return all.filter((p) => mine.has(p.spec?.nodeName));
    },
    get: (kind, namespace, name) => cache.get(kind)?.get(`${namespace ?? ""}/${name}`),
    create(kind, namespace, object) {
      void send(
        `${kind}/${namespace ?? ""}/${object.metadata?.name}`,
        `create ${kind}`,
        objectPath(kind, namespace),
        json("POST", object),
      );
      return object;
    },
    update(object) {
      void send(
        `${object.kind}/${object.metadata.namespace ?? ""}/${object.metadata.name}`,
        `update ${object.kind} ${object.metadata.name}`,
        objectPath(object.kind, object.metadata.namespace, object.metadata.name),
        json(
          "PATCH",
          { metadata: { labels: object.metadata.labels }, spec: object.spec },
          "application/merge-patch+json",
        ),
      );
      return object;
    },
    setStatus(object, status) {
      const uid = object.metadata.uid;
      const asked = JSON.stringify(status);
      const cached = api.get(object.kind, object.metadata.namespace, object.metadata.name);
      const before = written.get(uid);
      // Unchanged since our last write, and nobody else wrote the status since (the node lifecycle controller
      // marking pods not ready does): nothing to send.
      if (before && before.asked === asked && cached && JSON.stringify(cached.status) === before.answered)
        return object;
      written.set(uid, { asked, answered: before?.answered ?? "" });
      const key = `${object.kind}/${object.metadata.namespace ?? ""}/${object.metadata.name}`;
      void send(
        key,
        `status of ${object.kind} ${object.metadata.namespace ?? ""}/${object.metadata.name}`,
        objectPath(object.kind, object.metadata.namespace, object.metadata.name, "status"),
        json("PATCH", { status }, "application/merge-patch+json"),
      ).then((answer) => {
        const now = written.get(uid);
        if (answer && now?.asked === asked) written.set(uid, { asked, answered: JSON.stringify(answer.status) });
      });
      return object;
    },
    remove(kind, namespace, name, graceSeconds) {
      const cached = api.get(kind, namespace, name);
      const query = graceSeconds === undefined ? "" : `?gracePeriodSeconds=${graceSeconds}`;
      void send(
        `${kind}/${namespace ?? ""}/${name}`,
        `delete ${kind} ${namespace ?? ""}/${name}`,
        `${objectPath(kind, namespace, name)}${query}`,
        // As the kubelet's final delete: only the pod it ran, never a new one of the same name.
        json("DELETE", {
          apiVersion: "v1",
          kind: "DeleteOptions",
          ...(cached?.metadata.uid ? { preconditions: { uid: cached.metadata.uid } } : {}),
          ...(graceSeconds === undefined ? {} : { gracePeriodSeconds: graceSeconds }),
        }),
      );
    },
    // The kubelet deletes no namespace content: the real namespace controller does.
    contentOf: () => [],
    removeObject() {
      throw new Error("the kubelet stand-in deletes only pods");
    },
    event(object, type, reason, message, source) {
      const namespace = object.metadata.namespace ?? "default";
      const at = timestamp(clock.now());
      const key = `${object.metadata.uid}/${reason}/${message}`;
      const same = events.get(key);
      if (same) {
        same.count += 1;
        void send(
          `Event/${namespace}/${same.name}`,
          `event ${reason}`,
          objectPath("Event", namespace, same.name),
          json("PATCH", { count: same.count, lastTimestamp: at }, "application/merge-patch+json"),
        );
        return;
      }
      const name = `${object.metadata.name}.${clock.now().toString(16)}${(eventSerial++).toString(16).padStart(4, "0")}`;
      events.set(key, { namespace, name, count: 1 });
      const host = object.kind === "Node" ? object.metadata.name : object.spec?.nodeName;
      void send(
        `Event/${namespace}/${name}`,
        `event ${reason}`,
        objectPath("Event", namespace),
        json("POST", {
          apiVersion: "v1",
          kind: "Event",
          metadata: { name, namespace },
          involvedObject: {
            kind: object.kind,
            namespace: object.metadata.namespace,
            name: object.metadata.name,
            uid: object.metadata.uid,
            apiVersion: object.apiVersion ?? "v1",
            resourceVersion: object.metadata.resourceVersion,
            ...(object.kind === "Pod" ? { fieldPath: `spec.containers{${object.spec?.containers?.[0]?.name}}` } : {}),
          },
          reason,
          message,
          source: { component: source, ...(host ? { host } : {}) },
          firstTimestamp: at,
          lastTimestamp: at,
          count: 1,
          type,
          reportingComponent: source,
          reportingInstance: host ?? "",
        }),
      );
    },
    async synced() {
      while (!informers.every((i) => i.synced())) await new Promise((r) => setTimeout(r, 20));
    },
    flushed: () => (pending === 0 ? Promise.resolve() : new Promise<void>((resolve) => idle.push(resolve))),
    failures: () => failures,
    stop() {
      stopped = true;
      for (const informer of informers) informer.stop();
    },
  };
  return api;
}
