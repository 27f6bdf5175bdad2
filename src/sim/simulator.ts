import { randomBytes } from "node:crypto";
import { renderKubeconfig } from "./kubeconfig.ts";
import { createSimPki, type SimPki } from "./pki.ts";
import { SimAuthorizer, type SimRule } from "./authz.ts";
import {
  type ControllerClock,
  type SimControllers,
  startControllers,
  type TimingProfile,
} from "./controllers/index.ts";
import { startFakeKubelet, summaryFor, type FakeKubelet } from "./kubelet.ts";
import { customResourceType, METRICS_TYPES, TypeRegistry, type ResourceType } from "./resources.ts";
import { serveCustomResourceDefinitions } from "./crds.ts";
import type { InjectedFailure } from "./faults.ts";
import { startSimServer, type SimServer } from "./server.ts";
import { ObjectStore, type KubeObject } from "./store.ts";

/** Options of a simulator. `without` lists `group/version/plural` APIs that are not installed (optional APIs). */
export interface SimulatorOptions {
  readonly port?: number;
  readonly bookmarkIntervalMs?: number;
  readonly now?: () => number;
  readonly without?: readonly string[];
  /** Serve metrics.k8s.io/v1beta1 (as when metrics-server is installed). */
  readonly metricsApi?: boolean;
  /**
   * Serves built-in kinds in protobuf to a client that asks for it first, as kube-apiserver does (default
   * true); false answers JSON only, as a server behind a JSON-only proxy would — what tests of odd JSON objects
   * use, since protobuf cannot carry them.
   */
  readonly protobuf?: boolean;
  /** Changes kept for watches from an older resourceVersion (default 10,000). */
  readonly historyLimit?: number;
  /**
   * Runs the controllers (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, scheduler, kubelets, node
   * lifecycle, EndpointSlices, garbage collector) on this clock. Off by default: tests that place objects by
   * hand, and timeline replays, want nothing else to write.
   */
  readonly controllers?: ControllerClock;
  /**
   * How long things take in the controllers, and how late each kind's watch events are sent (docs/simulator.md
   * "Timing profiles"); the recorded timing by default. Watch delays need `controllers` (its clock).
   */
  readonly timing?: TimingProfile;
  /** Timers for watch bookmarks (every `bookmarkIntervalMs`): a test's fake clock, so watches never look idle. */
  readonly timers?: { setTimer(fn: () => void, delayMs: number): () => void };
}

/** A running simulator: the API server, its store, and the credentials a client needs. */
export interface Simulator {
  readonly server: SimServer;
  readonly store: ObjectStore;
  readonly pki: SimPki;
  readonly token: string;
  /** The controllers, when started with `controllers`. */
  readonly controllers?: SimControllers;
  /** Kubeconfig text with the CA and the bearer token. */
  kubeconfig(options?: { clientCert?: boolean; token?: boolean }): string;
  /**
   * Creates or replaces an object from a manifest (`apiVersion`, `kind`, `metadata`); status is kept as given,
   * and so is a creationTimestamp on create (objects that existed before the scenario starts). `manager` is
   * who writes, recorded in managedFields as kube-apiserver does (kubectl-client-side-apply, helm, argocd …);
   * without it the write is recorded nowhere. `writtenAt` (epoch ms) dates the write, as a scenario's setup
   * dates what happened before it starts.
   */
  apply(object: KubeObject, manager?: string, writtenAt?: number): KubeObject;
  /** Merge-patches an object's status subresource. */
  patchStatus(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    name: string,
    status: Record<string, unknown>,
  ): KubeObject;
  /** Deletes an object; pods are force-deleted (grace period 0). Missing objects are ignored. */
  remove(apiVersion: string, kind: string, namespace: string | undefined, name: string): void;
  readonly registry: TypeRegistry;
  /** Replaces the accepted bearer tokens with `tokens` (all admin): token rotation and revocation in tests. */
  setTokens(tokens: readonly string[]): void;
  /** Adds a user with RBAC-like rules; returns its bearer token. */
  addUser(name: string, rules: readonly SimRule[]): string;
  /** Kubeconfig text for a token of `addUser`. */
  kubeconfigFor(token: string): string;
  /**
   * Starts a fake kubelet for `node` on loopback and points the Node at it (InternalIP 127.0.0.1,
   * daemonEndpoints.kubeletEndpoint.Port). `summary` overrides the Summary API document.
   */
  startKubelet(node: string, summary?: () => unknown): Promise<FakeKubelet>;
  /** Points a Node at a loopback port where nothing listens: its kubelet is unreachable. */
  breakKubelet(node: string): void;
  /** Makes these /readyz checks fail (`etcd`, `informer-sync`, …); an empty list heals the API server. */
  setReadyzFailing(checks: readonly string[]): void;
  /** Records what a container wrote (its current or `previous` instance), served by `pods/log`. */
  setLogs(namespace: string, pod: string, container: string, text: string, previous?: boolean): void;
  /**
   * Makes every request for `group/plural` (`pods`, `example.com/widgets`), or for everything with `*` (an
   * outage: discovery, leases and every kind), answer `status`, as kube-apiserver words it (504: its
   * request-timeout Status); `message` replaces the Status message (`context canceled`, as kube-apiserver
   * answers a call whose context was canceled, with 500). Status 0 accepts each request and never answers,
   * not even with headers (a hung connection). Undefined heals it; requests already hanging stay hung.
   */
  failResource(
    resource: string,
    status: number | undefined,
    message?: string,
    options?: { retryAfterSeconds?: number },
  ): void;
  /** Serves a custom resource (as an installed CRD would); it appears in discovery. */
  addCustomResource(options: {
    group: string;
    version: string;
    plural: string;
    kind: string;
    namespaced: boolean;
    status?: boolean;
  }): ResourceType;
  /** The served resource type for a group, version and plural name; throws when not served. */
  typeOf(group: string, version: string, plural: string): ResourceType;
  stop(): Promise<void>;
}

/**
 * Starts the simulator with its own CA, a random admin token and the namespaces every cluster has
 * (default, kube-system, kube-public, kube-node-lease). `port` 0 picks a free one.
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const now = options.now ?? (() => Date.now());
  const pki = createSimPki();
  const registry = new TypeRegistry();
  for (const missing of options.without ?? []) {
    const [group = "", version = "", plural = ""] = missing.split("/");
    registry.remove(group, version, plural);
  }
  if (options.metricsApi) for (const t of METRICS_TYPES) registry.add(t);
  const store = new ObjectStore(now, options.historyLimit, registry);
  // A timing profile's watch delays need a clock for their timers: the controllers' (a test's fake clock).
  const delays = options.timing?.watchDelayMs ?? {};
  if (options.controllers && Object.values(delays).some((ms) => ms > 0))
    store.setWatchDelay((kind) => delays[kind] ?? 0, options.controllers);
  serveCustomResourceDefinitions(store, registry, now);
  const token = randomBytes(24).toString("hex");
  const authorizer = new SimAuthorizer();
  authorizer.addUser(token, { name: "admin", rules: "all" });
  const failures = new Map<string, InjectedFailure>();
  const kubelets: FakeKubelet[] = [];
  const logs = new Map<string, string>();
  let readyzFailing: readonly string[] = [];
  const server = await startSimServer({
    store,
    pki,
    registry,
    authorizer,
    failures,
    logs: (ns, pod, c, previous) => logs.get(`${ns}/${pod}/${c}/${previous}`),
    readyzFailing: () => readyzFailing,
    port: options.port,
    bookmarkIntervalMs: options.bookmarkIntervalMs,
    ...(options.timers ? { timers: options.timers } : {}),
    ...(options.protobuf === false ? { protobuf: false } : {}),
    now,
  });
  const namespaces = typeOf(registry, "v1", "Namespace");
  for (const name of ["default", "kube-system", "kube-public", "kube-node-lease"])
    store.create(namespaces, undefined, { metadata: { name } });

  const pointNode = (node: string, port: number) => {
    const nodes = typeOf(registry, "v1", "Node");
    const current = store.get(nodes, undefined, node);
    const addresses = [
      { type: "InternalIP", address: "127.0.0.1" },
      { type: "Hostname", address: node },
    ];
    store.update(
      nodes,
      undefined,
      node,
      { status: { ...current.status, addresses, daemonEndpoints: { kubeletEndpoint: { Port: port } } } },
      "status",
    );
  };

  const apply = (object: KubeObject, manager?: string, writtenAt?: number): KubeObject => {
    const type = typeOf(registry, object.apiVersion, object.kind);
    const namespace = type.namespaced ? (object.metadata?.namespace ?? "default") : undefined;
    let current: KubeObject | undefined;
    try {
      current = store.get(type, namespace, object.metadata.name);
    } catch {
      current = undefined;
    }
    let written = current
      ? store.update(
          type,
          namespace,
          object.metadata.name,
          { ...object, metadata: { ...object.metadata, resourceVersion: undefined } },
          undefined,
          manager,
          writtenAt,
        )
      : store.create(type, namespace, object, {
          keepCreationTimestamp: true,
          ...(manager ? { manager } : {}),
          ...(writtenAt !== undefined ? { writtenAt } : {}),
        });
    if (type.status && object.status)
      written = store.update(type, namespace, object.metadata.name, { status: object.status }, "status");
    return written;
  };

  const controllers = options.controllers
    ? startControllers(
        { store, registry },
        options.controllers,
        (ns, pod, c, text, previous) => logs.set(`${ns}/${pod}/${c}/${previous}`, text),
        options.timing,
      )
    : undefined;

  return {
    server,
    store,
    pki,
    token,
    controllers,
    kubeconfig: (opts = {}) =>
      renderKubeconfig({
        server: server.url,
        caCert: pki.caCert,
        token: opts.token === false ? undefined : token,
        ...(opts.clientCert ? { clientCert: pki.clientCert, clientKey: pki.clientKey } : {}),
      }),
    apply,
    patchStatus(apiVersion, kind, namespace, name, status) {
      return store.patch(
        typeOf(registry, apiVersion, kind),
        namespace,
        name,
        "application/merge-patch+json",
        { status },
        "status",
      );
    },
    remove(apiVersion, kind, namespace, name) {
      try {
        store.delete(typeOf(registry, apiVersion, kind), namespace, name, { gracePeriodSeconds: 0 });
      } catch {
        // already gone: the scenario's intent holds
      }
    },
    registry,
    setTokens(next) {
      authorizer.keepOnly([]);
      for (const t of next) authorizer.addUser(t, { name: "admin", rules: "all" });
    },
    addUser(name, rules) {
      const userToken = randomBytes(16).toString("hex");
      authorizer.addUser(userToken, { name, rules });
      return userToken;
    },
    kubeconfigFor: (userToken) => renderKubeconfig({ server: server.url, caCert: pki.caCert, token: userToken }),
    async startKubelet(node, summary) {
      const kubelet = await startFakeKubelet({ pki, authorizer, summary: summary ?? (() => summaryFor(node, now())) });
      kubelets.push(kubelet);
      pointNode(node, kubelet.port);
      return kubelet;
    },
    breakKubelet(node) {
      pointNode(node, 1);
    },
    setReadyzFailing(checks) {
      readyzFailing = [...checks];
    },
    setLogs(namespace, pod, container, text, previous = false) {
      logs.set(`${namespace}/${pod}/${container}/${previous}`, text);
    },
    failResource(resource, status, message, options) {
      if (status === undefined) failures.delete(resource);
      else failures.set(resource, { status, message, retryAfterSeconds: options?.retryAfterSeconds });
    },
    addCustomResource(crd) {
      const type = customResourceType(crd);
      registry.add(type);
      return type;
    },
    typeOf(group, version, plural) {
      const found = registry.find(group, version, plural);
      if (!found) throw new Error(`the simulator does not serve ${group}/${version} ${plural}`);
      return found;
    },
    stop: async () => {
      controllers?.stop();
      await Promise.all(kubelets.map((k) => k.close()));
      await server.close();
    },
  };
}

// --- internal ---

function typeOf(registry: TypeRegistry, apiVersion: string, kind: string): ResourceType {
  const found = registry.findByKind(apiVersion, kind);
  if (!found) throw new Error(`the simulator does not serve ${apiVersion} ${kind}`);
  return found;
}
