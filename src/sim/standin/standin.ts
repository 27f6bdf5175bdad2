import type { KubeConnection } from "../../kube/connection.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import { createKubelet, forgetPreviousLogs, type LogSink } from "../controllers/kubelet.ts";
import { RECORDED_TIMING, type TimingProfile } from "../controllers/timing.ts";
import { type KubeletServer, type LogSource, startKubeletServer } from "./kubelet-server.ts";
import { nodeHeartbeats, type StandInNode } from "./nodes.ts";
import { type RemoteApi, remoteApi } from "./remote-api.ts";

export type { StandInNode } from "./nodes.ts";

/** A running kubelet stand-in: what a test does to its nodes, and how it waits for it. */
export interface KubeletStandIn {
  /** Registers more nodes (Ready, heartbeats running). */
  addNodes(nodes: readonly StandInNode[]): Promise<void>;
  /** The node's kubelet goes silent (no Lease, no status, its pods' status frozen), as a lost node. */
  stopKubelet(node: string): void;
  /** The node's kubelet is back: Ready at once, its pods' status written again after `nodeReturnReadyMs`. */
  startKubelet(node: string): Promise<void>;
  /** What the pods' containers printed, by `namespace/pod/container` and instance (previous or current). */
  logs(namespace: string, pod: string, container: string, previous: boolean): string | undefined;
  /** Writes that failed (a test asserts none did). */
  failures(): readonly string[];
  /** Resolves when every write sent so far has been answered. */
  flushed(): Promise<void>;
  stop(): void;
}

/**
 * The simulator's kubelet (src/sim/controllers/kubelet.ts: pulls, starts, probes, crashes with the kubelet's
 * back-off, OOM kills, init containers, terminations, in the real kubelet's reasons and messages) run against a
 * real API server, for the nodes it registers (issue 40). Everything else is the real control plane's work: the
 * controllers, the scheduler, EndpointSlices, garbage collection, the node lifecycle controller (marking a node
 * whose Lease stops being renewed, tainting and evicting). Durations come from `timing`, the profiles the
 * timing-invariance property draws; `clock` is the real clock (the server stamps real time). Each node has its
 * kubelet endpoint on loopback (kubelet-server.ts), so `kubectl logs` and mon read what the containers printed
 * through the API server, as on a real cluster.
 */
export async function startKubeletStandIn(options: {
  connection: KubeConnection;
  clock: Clock;
  logger: Logger;
  nodes: readonly StandInNode[];
  timing?: TimingProfile;
}): Promise<KubeletStandIn> {
  const timing = options.timing ?? RECORDED_TIMING;
  const { clock } = options;
  const heartbeats = nodeHeartbeats(options.connection, clock);
  const returned = new Map<string, number>();
  const logs = new Map<string, string>();
  const sink: LogSink = (namespace, pod, container, text, previous) =>
    logs.set(`${namespace}/${pod}/${container}/${previous}`, text);
  const kubelet = createKubelet(
    {
      quietUntil(node) {
        if (heartbeats.silent(node)) return Number.POSITIVE_INFINITY;
        const back = returned.get(node);
        return back === undefined ? 0 : back + timing.nodeReturnReadyMs;
      },
    },
    sink,
    timing,
  );
  let stopped = false;
  let timer: { at: number; cancel: () => void } | undefined;
  const schedule = (at: number) => {
    // A silent node's pods wait for it (Infinity): its return schedules them.
    if (stopped || !Number.isFinite(at) || (timer && timer.at <= at)) return;
    timer?.cancel();
    const cancel = clock.setTimer(
      () => {
        timer = undefined;
        sync();
      },
      Math.max(0, at - clock.now()),
    );
    timer = { at, cancel };
  };
  const api: RemoteApi = remoteApi({
    connection: options.connection,
    clock,
    logger: options.logger,
    nodes: () => heartbeats.names(),
    // As a kubelet reacts to its pod watch: the next sync after the reaction time.
    onChange: () => schedule(clock.now() + timing.reactMs),
  });
  const sync = () => {
    if (stopped) return;
    const wake = kubelet.sync(api);
    if (wake !== undefined) schedule(wake);
  };
  const servers: KubeletServer[] = [];
  const logOf: LogSource = (namespace, pod, container, previous) =>
    logs.get(`${namespace}/${pod}/${container}/${previous}`);
  /** Starts the node's kubelet endpoint, then registers the node pointing at it. */
  const register = async (node: StandInNode) => {
    const server = await startKubeletServer(node.name, logOf);
    servers.push(server);
    await heartbeats.register({ ...node, kubeletPort: server.port });
  };
  await api.synced();
  for (const node of options.nodes) await register(node);
  schedule(clock.now());
  return {
    async addNodes(nodes) {
      for (const node of nodes) await register(node);
      schedule(clock.now());
    },
    stopKubelet: (node) => heartbeats.stop(node),
    async startKubelet(node) {
      returned.set(node, clock.now());
      forgetPreviousLogs(
        api.list("Pod").filter((p) => p.spec?.nodeName === node),
        sink,
      );
      await heartbeats.start(node);
      schedule(clock.now());
    },
    logs: (namespace, pod, container, previous) => logs.get(`${namespace}/${pod}/${container}/${previous}`),
    failures: () => api.failures(),
    flushed: () => api.flushed(),
    stop() {
      stopped = true;
      timer?.cancel();
      heartbeats.stopAll();
      api.stop();
      for (const server of servers) void server.close();
    },
  };
}
