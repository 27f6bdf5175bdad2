import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectKube } from "../kube/connection.ts";
import { parseConfig } from "./config.ts";
import { startDaemon, type Daemon } from "../app/daemon.ts";
import { createFakeClock, type FakeClock } from "../runtime/clock.ts";
import { createSilentLogger } from "../runtime/logger.ts";
import { startSimulator, type Simulator, type SimulatorOptions } from "../sim/simulator.ts";
import { deployment, readyNode, runningPod, runningStatus } from "../sim/scenarios/builders.ts";
import { stringify } from "yaml";
import type { KubeObject } from "../model/inventory.ts";
import type { Edition } from "../model/edition.ts";
import { waitUntil } from "./capture-server.ts";

/**
 * A fake clock at the wall clock's time, on a whole second: the API server (and the simulator) write times to
 * the second, so a duration a test reads back from them is whole seconds whichever millisecond the test began at.
 */
export function testClock(): FakeClock {
  return createFakeClock(Math.floor(Date.now() / 1000) * 1000);
}

/** A daemon running against a simulator, with a fake clock for its timers (passes, retries, backoff). */
export interface TestCluster {
  readonly sim: Simulator;
  readonly daemon: Daemon;
  readonly clock: FakeClock;
  /** Waits until the daemon's Inventory has seen the simulator's latest change, then runs a pass. */
  settle(): Promise<void>;
  /** Stops the daemon only (a restart test starts another on the same simulator and clock). */
  stopDaemon(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts a simulator and the real daemon against it over HTTPS, configured with `alert` providers.
 * Passes run only when the test calls `settle()` (the first is the startup baseline); the fake clock moves
 * only when the test advances it. `options.config` adds top-level configuration keys (silences, scope);
 * `options.edition` injects the edition (Community unless a test asks for Pro); `options.dnsMetricsPort`
 * points the cluster DNS metrics reads at a loopback server; `options.dataDir` is MON_DATA_DIR (a fresh
 * temporary directory unless given: Pro keeps its state file there); the startup message is off unless
 * `options.startupMessage`, so tests count only the messages they cause.
 */
export async function startTestCluster(
  alert: Record<string, unknown>,
  options: {
    cluster?: string;
    config?: Record<string, unknown>;
    edition?: Edition;
    dnsMetricsPort?: number;
    dataDir?: string;
    startupMessage?: boolean;
    /** More environment (MON_LICENSE_URL, POD_NAMESPACE …). */
    env?: Record<string, string>;
    /** Reuse a simulator and clock (a restart). */
    sim?: Simulator;
    /** Whether the simulator serves protobuf (default true; false: JSON only, for odd JSON objects). */
    protobuf?: boolean;
    clock?: FakeClock;
    /** Run as a release build (telemetry and the update check are on there). */
    build?: "release" | "development";
    /** Where the stdout provider and the audit log's stdout output write (discarded by default). */
    stdout?: (text: string) => void;
    /** Passes run on their own this long after a change, on the fake clock (as `mon run`: 250 ms). */
    passDelayMs?: number;
    /** Real-time deadlines of lists and watch headers (hung-connection tests). */
    requestDeadlinesMs?: { list: number; watchHeaders: number };
    /** Serve health on loopback with the protected diagnostics endpoints under this token (`mon explain`). */
    diagnosticsToken?: string;
  } = {},
): Promise<TestCluster> {
  const sim = options.sim ?? (await startSimulator(options.protobuf === false ? { protobuf: false } : {}));
  const clock = options.clock ?? testClock();
  // The API server's bookmarks follow the daemon's clock, as they follow real time in a cluster (issue 30).
  sim.server.useTimers(clock);
  const config = parseConfig(
    stringify({
      ...options.config,
      app: {
        ...(options.config?.app as Record<string, unknown> | undefined),
        clusterName: options.cluster ?? "test",
        disableStartupMessage: !options.startupMessage,
      },
      healthCheck: options.diagnosticsToken
        ? { enabled: true, diagnostics: { enabled: true, token: `\${file:${secretFile(options.diagnosticsToken)}}` } }
        : { enabled: false },
      alert,
    }),
    "test.yaml",
    { MON_DATA_DIR: options.dataDir ?? mkdtempSync(join(tmpdir(), "mon-data-")), ...options.env },
  );
  const connection = await connectKube({ kubeconfigText: sim.kubeconfig() });
  const daemon = await startDaemon({
    config,
    connection,
    clock,
    logger: createSilentLogger(),
    passDelayMs: options.passDelayMs ?? 3_600_000,
    stdout: options.stdout ?? (() => {}),
    ...(options.edition ? { edition: options.edition } : {}),
    ...(options.build ? { build: options.build } : {}),
    ...(options.requestDeadlinesMs ? { requestDeadlinesMs: options.requestDeadlinesMs } : {}),
    ...(options.dnsMetricsPort !== undefined ? { dnsMetricsPort: options.dnsMetricsPort } : {}),
    ...(options.diagnosticsToken ? { healthPort: 0, healthHost: "127.0.0.1" } : {}),
  });
  await waitUntil(() => daemon.health.ready(), "informers to sync", 10_000);
  return {
    sim,
    daemon,
    clock,
    async settle() {
      await waitUntil(() => consistent(sim, daemon), "the daemon's Inventory to match the simulator");
      daemon.passNow();
      // A new crash waits for its log before it is announced: let the read finish, then pass again.
      if (daemon.evidencePending()) {
        await waitUntil(() => !daemon.evidencePending(), "log evidence to be read");
        daemon.passNow();
      }
      // What the passes decided is in the delivery queues before the test moves on (redaction is async).
      await daemon.sent();
    },
    stopDaemon: () => daemon.stop(0),
    async stop() {
      await daemon.stop(0);
      await sim.stop();
    },
  };
}

/** Seeds a small shop: three Ready nodes, Deployment `shop/api` with 2 pods (n1, n2) and `shop/web` with 1 pod on n3. */
export function seedShop(sim: Simulator, now: number): { api: KubeObject; web: KubeObject } {
  for (const node of ["n1", "n2", "n3"]) sim.apply(readyNode(node, now - 86_400_000));
  return {
    api: seedWorkload(sim, "shop", "api", ["n1", "n2"], now),
    web: seedWorkload(sim, "shop", "web", ["n3"], now),
  };
}

/**
 * Seeds Deployment `namespace/name` (its namespace too) with a ReplicaSet and one running pod per node of
 * `nodes` (`<name>-abc12-p<i>`), running for an hour; returns the Deployment as stored.
 */
export function seedWorkload(
  sim: Simulator,
  namespace: string,
  name: string,
  nodes: readonly string[],
  now: number,
): KubeObject {
  sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  const { deployment: d, replicaSet } = deployment(
    namespace,
    name,
    nodes.length,
    `ghcr.io/${namespace}/${name}:1.0`,
    "abc12",
  );
  const dep = sim.apply(d);
  const rs = sim.apply({
    ...replicaSet,
    metadata: {
      ...replicaSet.metadata,
      ownerReferences: [{ apiVersion: "apps/v1", kind: "Deployment", name, uid: dep.metadata.uid, controller: true }],
    },
  });
  for (const [i, node] of nodes.entries()) sim.apply(runningPod(rs, `p${i}`, node, now - 3_600_000));
  return dep;
}

/**
 * Marks a Deployment with no available replica since `now` (epoch ms), as its controller writes it; `more`
 * conditions beside Available (a Progressing=False past its deadline).
 */
export function deploymentUnavailable(
  sim: Simulator,
  namespace: string,
  name: string,
  now: number,
  more: readonly object[] = [],
): void {
  const since = new Date(now).toISOString().replace(/\.\d+Z$/, "Z");
  sim.patchStatus("apps/v1", "Deployment", namespace, name, {
    availableReplicas: 0,
    readyReplicas: 0,
    unavailableReplicas: 1,
    conditions: [
      {
        type: "Available",
        status: "False",
        reason: "MinimumReplicasUnavailable",
        message: "Deployment does not have minimum availability.",
        lastTransitionTime: since,
        lastUpdateTime: since,
      },
      ...more,
    ],
  });
}

/** Puts a pod's only container into CrashLoopBackOff with `restarts` restarts and exit code 1; `output` is its last termination message (default: a panic naming the container). */
export function crashPod(
  sim: Simulator,
  namespace: string,
  name: string,
  restarts: number,
  now: number,
  output?: string,
): void {
  const pod = sim.store.get(sim.typeOf("", "v1", "pods"), namespace, name);
  const c = pod.spec.containers[0];
  sim.patchStatus("v1", "Pod", namespace, name, {
    phase: "Running",
    containerStatuses: [
      {
        name: c.name,
        image: c.image,
        imageID: "",
        ready: false,
        started: false,
        restartCount: restarts,
        state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 40s restarting failed container" } },
        lastState: {
          terminated: {
            exitCode: 1,
            reason: "Error",
            message: output ?? `panic: ${c.name} cannot load its configuration`,
            finishedAt: new Date(now).toISOString(),
          },
        },
      },
    ],
  });
}

/**
 * Brings a pod's only container back to running and ready (the crash loop fixed), with `restarts` restarts,
 * started at `now`.
 */
export function healPod(sim: Simulator, namespace: string, name: string, restarts: number, now: number): void {
  const pod = sim.store.get(sim.typeOf("", "v1", "pods"), namespace, name);
  const c = pod.spec.containers[0];
  sim.patchStatus("v1", "Pod", namespace, name, runningStatus(c.name, c.image, new Date(now).toISOString(), restarts));
}

// --- internal ---

const CHECKED: readonly [string, string, string][] = [
  ["Pod", "", "pods"],
  ["Namespace", "", "namespaces"],
  ["Node", "", "nodes"],
  ["Deployment", "apps", "deployments"],
  ["ReplicaSet", "apps", "replicasets"],
  // What Service rules read: a settle before an EndpointSlice arrived judged a Service without it (a busy machine).
  ["Service", "", "services"],
  ["EndpointSlice", "discovery.k8s.io", "endpointslices"],
];

/**
 * True when the daemon's Inventory holds exactly the simulator's objects, at the same resourceVersions, for
 * `kinds` (kind, API group, plural; v1 of each).
 */
export function consistent(
  sim: Simulator,
  daemon: Daemon,
  kinds: readonly (readonly [string, string, string])[] = CHECKED,
): boolean {
  return inconsistency(sim, daemon, kinds) === undefined;
}

/**
 * The first object the daemon's Inventory holds older than the simulator sent it on its watch (`Pod
 * shop/api-1: have 120, sent 121, now 121`), or undefined when the daemon is caught up. A daemon that listed
 * (after a watch's history was compacted) may hold a newer version than was sent, up to the current one.
 */
export function inconsistency(
  sim: Simulator,
  daemon: Daemon,
  kinds: readonly (readonly [string, string, string])[] = CHECKED,
): string | undefined {
  for (const [kind, group, plural] of kinds) {
    const type = sim.typeOf(group, "v1", plural);
    // What the daemon can have seen: what was sent on its watch (a timing profile delays that), or what a
    // list returned since (the current objects).
    const sent = sim.store.publishedObjects(type);
    const current = new Map(
      sim.store.list(type, undefined).map((o) => [`${o.metadata.namespace ?? ""}/${o.metadata.name}`, o]),
    );
    const have = new Map(
      daemon.inventory.list(kind).map((o) => [`${o.metadata.namespace ?? ""}/${o.metadata.name}`, o]),
    );
    for (const key of new Set([...sent.keys(), ...have.keys()])) {
      const rv = have.get(key)?.metadata.resourceVersion;
      const sentRv = sent.get(key)?.metadata.resourceVersion;
      const nowRv = current.get(key)?.metadata.resourceVersion;
      const caughtUp =
        rv === undefined
          ? sentRv === undefined || nowRv === undefined
          : sentRv === undefined
            ? nowRv !== undefined
            : Number(rv) >= Number(sentRv);
      if (!caughtUp) return `${kind} ${key}: have ${rv}, sent ${sentRv}, now ${nowRv}`;
    }
  }
  return undefined;
}

/** A daemon against a simulator, started by `startSimulatedDaemon`; `stop()` stops both. */
export interface SimulatedDaemon {
  readonly sim: Simulator;
  readonly daemon: Daemon;
  stop(): Promise<void>;
}

/**
 * Starts a simulator (with `simOptions`), lets `before` shape it, and starts the real daemon against it with
 * a fake clock. `kubeconfig` chooses the credentials (default: the admin token); `config` and `env` are the
 * configuration file's content and the environment; `healthPort` 0 serves health on a free port.
 */
export async function startSimulatedDaemon(
  options: {
    simOptions?: SimulatorOptions;
    before?: (sim: Simulator) => void;
    kubeconfig?: (sim: Simulator) => string;
    config?: Record<string, unknown>;
    env?: Record<string, string>;
    healthPort?: number;
    watchLimits?: { objectCap: number; metadataBudget: number };
  } = {},
): Promise<SimulatedDaemon> {
  const sim = await startSimulator(options.simOptions);
  options.before?.(sim);
  const config = parseConfig(stringify(options.config ?? {}), "test.yaml", options.env ?? {});
  const connection = await connectKube({
    kubeconfigText: (options.kubeconfig ?? ((s: Simulator) => s.kubeconfig()))(sim),
  });
  const clock = testClock();
  sim.server.useTimers(clock);
  const daemon = await startDaemon({
    config,
    connection,
    clock,
    logger: createSilentLogger(),
    stdout: () => {},
    ...(options.healthPort !== undefined ? { healthPort: options.healthPort } : {}),
    ...(options.watchLimits ? { watchLimits: options.watchLimits } : {}),
  });
  return {
    sim,
    daemon,
    async stop() {
      await daemon.stop(0);
      await sim.stop();
    },
  };
}

/**
 * Waits until the daemon's delivery is idle, for at most `realMs` of real time, and says whether it is: a job
 * in a retry back-off waits on the fake clock, which only the test moves, so waiting for it without a real
 * limit would hang the test (on a busy machine a loopback request can be refused or reset, and retried).
 */
export async function deliverySettled(daemon: Daemon, realMs = 10_000): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), realMs);
  });
  try {
    return await Promise.race([daemon.delivery.drain(5_000), limit]);
  } finally {
    clearTimeout(timer);
  }
}

/** Writes a credential to a file of its own, as a mounted Secret holds it; returns its absolute path. */
function secretFile(value: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "mon-secret-")), "token");
  writeFileSync(path, value);
  return path;
}
