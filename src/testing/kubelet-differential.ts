import { connectKube, type KubeConnection } from "../kube/connection.ts";
import { LineSplitter } from "../kube/lines.ts";
import { createSystemClock } from "../runtime/clock.ts";
import { createSilentLogger } from "../runtime/logger.ts";
import { REAL_KUBELET_TIMING } from "../sim/controllers/index.ts";
import { startKubeletStandIn } from "../sim/standin/standin.ts";
import { fate, INIT_CRASH, serveHealth, sh } from "../sim/stories/story.ts";
import type { KubeObject } from "../sim/store.ts";
import type { RealNode } from "./real-node.ts";

/**
 * The kubelet differential (issue 50): one script of pods told at once to a kubelet stand-in node (the simulator's
 * kubelet, src/sim/controllers/kubelet.ts, on REAL_KUBELET_TIMING, the real kubelet's as measured) and to the real node, each side
 * watched as mon watches, and what each watcher saw reduced to facts that do not depend on names the servers
 * generate or on exact times: per pod, its containers' states in the order they first appeared (running left
 * out: whether a process that exits at once is seen running is a matter of milliseconds), their waiting reasons
 * and messages, their terminations and last terminations, the rhythm of their restarts (backing off, the first at
 * once), the phase it ends in, the conditions that turned True and the reasons it was not Ready; the Events about
 * it, with their reasons, sources, messages and whether they repeat; and how often the node's status and its
 * Lease are written. Each pod's behaviour is its busybox command's on the real node and its fate annotations' on
 * the stand-in, as in the stories written for real pods.
 */

/** One pod of the script: its role (the name facts use), and the pod as written (without namespace or node). */
interface ScriptPod {
  readonly role: string;
  pod(): KubeObject;
}

const GRACE = { terminationGracePeriodSeconds: 3 };

/** A bare pod named after its role, one container, with what the simulated kubelet is told in `annotations`. */
function scripted(role: string, spec: KubeObject, annotations: Record<string, string> = {}): ScriptPod {
  return {
    role,
    pod: () => ({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: role, labels: { role }, ...(Object.keys(annotations).length ? { annotations } : {}) },
      spec: { ...GRACE, ...spec },
    }),
  };
}

/** The pods of the script: one per signal the kubelet writes that mon reads. */
export const KUBELET_SCRIPT: readonly ScriptPod[] = [
  scripted(
    "crash",
    { containers: [sh("app", 'echo "starting"; echo "Error: boom"; exit 1')] },
    fate("crash", "starting\nError: boom\n"),
  ),
  scripted(
    "oom",
    {
      containers: [
        sh("app", `echo "allocating"; x=$(head -c 60000000 /dev/zero | tr '\\0' a); exec sleep 3600`, {
          resources: { limits: { memory: "20Mi" } },
        }),
      ],
    },
    fate("oom"),
  ),
  scripted(
    "liveness",
    {
      containers: [
        sh("app", serveHealth("healthz", "true"), {
          livenessProbe: { httpGet: { path: "/healthz", port: 8080 }, periodSeconds: 5, failureThreshold: 3 },
        }),
      ],
    },
    fate("liveness"),
  ),
  scripted(
    "readiness",
    {
      containers: [
        sh("app", serveHealth("ready", "true"), {
          readinessProbe: { httpGet: { path: "/ready", port: 8080 }, periodSeconds: 5, failureThreshold: 3 },
        }),
      ],
    },
    fate("unready"),
  ),
  scripted("pull", { containers: [{ name: "app", image: "registry.example/none:1" }] }, fate("image-missing")),
  scripted(
    "init",
    { initContainers: [sh("setup", 'echo "setup failed"; exit 1')], containers: [sh("app", "exec sleep 3600")] },
    INIT_CRASH,
  ),
  scripted("config", {
    containers: [
      sh("app", "exec sleep 3600", {
        env: [{ name: "PASSWORD", valueFrom: { secretKeyRef: { name: "missing", key: "password" } } }],
      }),
    ],
  }),
  scripted("complete", { restartPolicy: "Never", containers: [sh("app", 'echo "done"')] }, fate("complete")),
  scripted(
    "fail",
    { restartPolicy: "Never", containers: [sh("app", 'echo "Error: failed"; exit 1')] },
    fate("fail", "Error: failed\n"),
  ),
  scripted("graceful", {
    containers: [sh("app", "trap 'echo draining; exit 0' TERM; sleep 3600 & wait")],
  }),
];

/** Seconds the script runs: enough for three restarts at the default back-off (10, 20, 40 s) and their events. */
const SCRIPT_SECONDS = 240;
/** The second the `graceful` pod is deleted. */
const DELETE_AT = 90;

/** Why the pull failures' words differ, and why mon does not mind. */
const PULL_WHY =
  "Two real causes of one failure: no registry is reachable from the real node, so containerd cannot even resolve the registry's name; the simulated kubelet models a registry that answers that the tag does not exist. The reasons, the event kinds and their order are the same; mon tells ImagePullBackOff with whichever message the kubelet wrote.";

/** A difference between the stand-in's kubelet and the real one the differential finds and keeps, and why. */
export interface KnownKubeletDifference {
  /** The fact, as `kubeletFacts` says it. */
  readonly fact: string;
  readonly only: "stand-in" | "real";
  readonly why: string;
}

/**
 * The differences kept (docs/simulator.md "The kubelet held to the real one"): any other one fails the test, so it
 * is fixed in the simulator's kubelet or added here with why mon is not affected.
 */
export const KNOWN_KUBELET_DIFFERENCES: readonly KnownKubeletDifference[] = [
  ...[
    'event about pod pull: Warning Failed from kubelet: Failed to pull image "registry.example/none:#": failed to pull and unpack image "registry.example/none:#": failed to resolve reference "registry.example/none:#": registry.example/none:#: not found (repeated)',
    'pod pull: app waiting ErrImagePull: failed to pull and unpack image "registry.example/none:#": failed to resolve reference "registry.example/none:#": registry.example/none:#: not found',
    'pod pull: app waiting ImagePullBackOff: Back-off pulling image "registry.example/none:#": ErrImagePull: failed to pull and unpack image "registry.example/none:#": failed to resolve reference "registry.example/none:#": registry.example/none:#: not found',
  ].map((fact) => ({ fact, only: "stand-in" as const, why: PULL_WHY })),
  ...[
    'event about pod pull: Warning Failed from kubelet: Failed to pull image "registry.example/none:#": failed to pull and unpack image "registry.example/none:#": failed to resolve reference "registry.example/none:#": failed to do request: Head "https://registry.example/v#/none/manifests/#": dial tcp: lookup registry.example: not resolved (repeated)',
    'pod pull: app waiting ErrImagePull: failed to pull and unpack image "registry.example/none:#": failed to resolve reference "registry.example/none:#": failed to do request: Head "https://registry.example/v#/none/manifests/#": dial tcp: lookup registry.example: not resolved',
    'pod pull: app waiting ImagePullBackOff: Back-off pulling image "registry.example/none:#": ErrImagePull: failed to pull and unpack image "registry.example/none:#": failed to resolve reference "registry.example/none:#": failed to do request: Head "https://registry.example/v#/none/manifests/#": dial tcp: lookup registry.example: not resolved',
  ].map((fact) => ({ fact, only: "real" as const, why: PULL_WHY })),
];

/** What each side of the differential saw, as facts. */
export interface KubeletDifferentialRun {
  readonly standIn: readonly string[];
  readonly real: readonly string[];
  /** Writes a side refused, with why. */
  readonly failures: readonly string[];
}

/** The namespaces of the two sides: mon's stories running beside them see them as placed elsewhere. */
export const KUBELET_DIFFERENTIAL_NAMESPACES = { standIn: "kubelet-diff-standin", real: "kubelet-diff-real" } as const;

/** The stand-in node of the differential. */
export const KUBELET_DIFFERENTIAL_NODE = "kubelet-diff-standin";

/**
 * Tells KUBELET_SCRIPT to a stand-in node (on REAL_KUBELET_TIMING, the real kubelet's as measured) and to the real node
 * at once, each in its own namespace, the pods bound to their node by `nodeName`; watches Pods, Events, the two
 * Nodes and their Leases; deletes the `graceful` pod at DELETE_AT; after SCRIPT_SECONDS reduces each side to its
 * facts (`kubeletFacts`). About 4 minutes.
 */
export async function runKubeletDifferential(node: RealNode): Promise<KubeletDifferentialRun> {
  const connection = await connectKube({ kubeconfigText: node.kube.kubeconfigText });
  const standIn = await startKubeletStandIn({
    connection,
    clock: createSystemClock(),
    logger: createSilentLogger(),
    nodes: [{ name: KUBELET_DIFFERENTIAL_NODE, labels: {}, address: "127.0.0.1" }],
    timing: REAL_KUBELET_TIMING,
  });
  const failures: string[] = [];
  const watch = await watchKubelets(connection);
  try {
    const sides = [
      { namespace: KUBELET_DIFFERENTIAL_NAMESPACES.standIn, node: KUBELET_DIFFERENTIAL_NODE, real: false },
      { namespace: KUBELET_DIFFERENTIAL_NAMESPACES.real, node: node.name, real: true },
    ];
    for (const side of sides) {
      await send(connection, "POST", "/api/v1/namespaces", {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: side.namespace },
      }).catch((e: Error) => failures.push(`namespace ${side.namespace}: ${e.message}`));
    }
    // A new namespace's service-account volumes mount once the control plane has published its root CA there
    // (before, a kubelet tells FailedMount for a moment): the script starts on namespaces that have it.
    for (const side of sides)
      for (let i = 0; i < 100; i++) {
        const r = await connection.request(`/api/v1/namespaces/${side.namespace}/configmaps/kube-root-ca.crt`);
        await r.body?.cancel();
        if (r.ok) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    const began = Date.now();
    await Promise.all(
      sides.flatMap((side) =>
        KUBELET_SCRIPT.map(async (p) => {
          const pod = p.pod();
          // On the real node a container does what its command says; the fate annotations are the stand-in's.
          if (side.real) delete pod.metadata.annotations;
          pod.metadata.namespace = side.namespace;
          pod.spec.nodeName = side.node;
          await send(connection, "POST", `/api/v1/namespaces/${side.namespace}/pods`, pod).catch((e: Error) =>
            failures.push(`${side.namespace}/${p.role}: ${e.message}`),
          );
        }),
      ),
    );
    await sleepUntil(began + DELETE_AT * 1000);
    for (const side of sides)
      await send(connection, "DELETE", `/api/v1/namespaces/${side.namespace}/pods/graceful`).catch((e: Error) =>
        failures.push(`delete ${side.namespace}/graceful: ${e.message}`),
      );
    await sleepUntil(began + SCRIPT_SECONDS * 1000);
    const events = watch.events();
    for (const side of sides) await send(connection, "DELETE", `/api/v1/namespaces/${side.namespace}`).catch(() => {});
    return {
      standIn: kubeletFacts(events, sides[0]!.namespace, sides[0]!.node),
      real: kubeletFacts(events, sides[1]!.namespace, sides[1]!.node),
      failures: [...failures, ...standIn.failures()],
    };
  } finally {
    watch.stop();
    standIn.stop();
  }
}

/** One watch event as the differential saw it: its kind, type, second since the watch began and object. */
export interface KubeletEvent {
  readonly kind: "Pod" | "Event" | "Node" | "Lease";
  readonly type: string;
  readonly at: number;
  readonly object: Record<string, any>;
}

/**
 * What a watcher saw of one side's kubelet, as facts (sorted, unique): see the module's comment. `namespace` is
 * the side's, `node` its node. Messages are normalized: names, ids, addresses and numbers become `#`.
 */
export function kubeletFacts(events: readonly KubeletEvent[], namespace: string, node: string): string[] {
  const facts = new Set<string>();
  const fact = (f: string) => facts.add(f);
  const pods = events.filter((e) => e.kind === "Pod" && e.object.metadata?.namespace === namespace);
  const roles = [...new Set(pods.map((e) => String(e.object.metadata?.labels?.role ?? e.object.metadata?.name)))];
  for (const role of roles) {
    const mine = pods.filter((e) => (e.object.metadata?.labels?.role ?? e.object.metadata?.name) === role);
    // Per container, its states by first appearance (running left out: whether a watcher sees a process that
    // exits at once running is a matter of milliseconds), and when each instance ended, by its runtime id.
    const states = new Map<string, string[]>();
    const exits = new Map<string, Map<string, number>>();
    const everTrue = new Set<string>();
    let phase = "-";
    let ready = "-";
    let restarted = false;
    for (const e of mine) {
      const status = e.object.status ?? {};
      phase = String(status.phase ?? phase);
      // The pod's setup conditions; whether a process that ends at once was ever seen Ready is a matter of
      // milliseconds (its final readiness is a fact of its own).
      for (const c of status.conditions ?? [])
        if (c.status === "True" && c.type !== "Ready" && c.type !== "ContainersReady") everTrue.add(String(c.type));
      const readyNow = (status.conditions ?? []).find((c: any) => c.type === "Ready")?.status;
      if (readyNow) ready = readyNow;
      const readyFalse = (status.conditions ?? []).find((c: any) => c.type === "Ready" && c.status === "False");
      if (readyFalse?.reason) fact(`pod ${role}: Ready=False (${readyFalse.reason})`);
      for (const s of [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])]) {
        if ((s.restartCount ?? 0) > 0) restarted = true;
        const seen = states.get(s.name) ?? [];
        const state = stateOf(s.state);
        if (state !== "running" && !seen.includes(state)) seen.push(state);
        states.set(s.name, seen);
        if (s.state?.waiting?.message)
          fact(`pod ${role}: ${s.name} waiting ${s.state.waiting.reason}: ${normalize(s.state.waiting.message)}`);
        const last = s.lastState?.terminated;
        if (last) fact(`pod ${role}: ${s.name} last termination ${last.reason ?? "-"} exit ${last.exitCode}`);
        const term = s.state?.terminated;
        if (term) fact(`pod ${role}: ${s.name} terminated ${term.reason ?? "-"} exit ${term.exitCode}`);
        for (const t of [term, last]) {
          const at = Date.parse(String(t?.finishedAt ?? ""));
          if (t?.containerID && !Number.isNaN(at)) {
            const byId = exits.get(s.name) ?? new Map<string, number>();
            byId.set(String(t.containerID), at);
            exits.set(s.name, byId);
          }
        }
      }
    }
    // A container that restarts is Ready or not at the end as its cycle falls when the script ends: a matter of
    // seconds, not of the kubelet (each Ready=False reason on the way is a fact above).
    fact(restarted ? `pod ${role}: ends ${phase}` : `pod ${role}: ends ${phase}, Ready=${ready}`);
    fact(`pod ${role}: conditions that turned True ${[...everTrue].sort().join(", ") || "(none)"}`);
    for (const [name, seen] of states) fact(`pod ${role}: ${name} states by first appearance ${seen.join(" → ")}`);
    for (const [name, byId] of exits) {
      const ended = [...byId.values()].sort((a, b) => a - b);
      if (ended.length >= 3) fact(`pod ${role}: ${name} restarts ${rhythm(ended)}`);
    }
  }
  const podEvents = events.filter(
    (e) =>
      e.kind === "Event" && e.object.involvedObject?.namespace === namespace && e.object.involvedObject?.kind === "Pod",
  );
  const counts = new Map<string, number>();
  for (const e of podEvents) {
    const o = e.object;
    // The service-account volume of a pod made while its kubelet is busy may fail to mount once ("failed to sync
    // configmap cache", the root CA not there yet) before it starts: a matter of load, not of the kubelet's rules,
    // and nothing mon reads (it never names kube-root-ca.crt).
    if (o.reason === "FailedMount" && /volume "kube-api-access-/.test(String(o.message ?? ""))) continue;
    const role = String(o.involvedObject?.name ?? "?");
    const key = `event about pod ${role}: ${o.type} ${o.reason} from ${o.source?.component ?? o.reportingComponent ?? "?"}: ${normalize(String(o.message ?? ""))}`;
    counts.set(key, Math.max(counts.get(key) ?? 0, Number(o.count ?? 1), e.type === "MODIFIED" ? 2 : 1));
  }
  for (const [key, count] of counts) fact(count > 1 ? `${key} (repeated)` : key);
  // The node: how often its status and its Lease are written while it is healthy.
  const nodeWrites = events.filter(
    (e) => e.kind === "Node" && e.object.metadata?.name === node && e.type === "MODIFIED",
  );
  const leaseWrites = events.filter(
    (e) => e.kind === "Lease" && e.object.metadata?.name === node && e.type === "MODIFIED",
  );
  const span = Math.max(1, ...events.map((e) => e.at)) - Math.min(...events.map((e) => e.at), 0);
  fact(`node: Lease renewed about every ${cadence(leaseWrites.length, span)}`);
  fact(`node: status written about every ${cadence(nodeWrites.length, span)}`);
  return [...facts].sort();
}

// --- internal ---

/**
 * How a container's instances ended, in words: `back off` when each wait after the first is longer than the one
 * before (the kubelet's back-off), `at a steady rhythm` when they are about equal; `, the first at once` when the
 * first two ended within 5 s (a kubelet's first restart comes at once).
 */
function rhythm(ended: readonly number[]): string {
  const gaps = ended.slice(1).map((at, i) => at - ended[i]!);
  const first = gaps[0]! < 5_000 ? ", the first at once" : "";
  const later = gaps.slice(gaps[0]! < 5_000 ? 1 : 0);
  if (later.length < 2) return `end${first}`;
  const growing = later.every((g, i) => i === 0 || g > later[i - 1]! + 2_000);
  return `${growing ? "back off" : "at a steady rhythm"}${first}`;
}

function stateOf(state: Record<string, any> | undefined): string {
  if (!state) return "?";
  if (state.waiting) return `waiting(${state.waiting.reason ?? "-"})`;
  if (state.running) return "running";
  if (state.terminated) return `terminated(${state.terminated.reason ?? "-"}, ${state.terminated.exitCode})`;
  return "?";
}

/**
 * A message with what differs between servers and runs (names, ids, addresses, numbers, quoted values) as `#`,
 * and a name that does not resolve said one way, whatever the machine's resolver answered.
 */
export function normalize(message: string): string {
  return (
    message
      // How a name fails to resolve is the machine's (no such host, server misbehaving, an i/o timeout without a
      // resolver): one failure to resolve, whatever the resolver said.
      .replace(/dial tcp: lookup ([^\s:]+)[^"]*$/, "dial tcp: lookup $1: not resolved")
      .replace(/[a-z]+:\/\/[0-9a-f]{12,}/g, "#")
      .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, "#")
      .replace(/\b\d+\.\d+\.\d+\.\d+\b/g, "#")
      .replace(/kubelet-diff-(real|standin)/g, "#")
      .replace(/\b(localhost|#)\b/g, "#")
      .replace(/\d+(\.\d+)?/g, "#")
      .replace(/\s+/g, " ")
      .trim()
  );
}

/** A write cadence in words: `10 s`, `a minute`, or `several minutes or more` (none over the span watched included). */
function cadence(writes: number, spanSeconds: number): string {
  // Once every 5 minutes and never in a span of a few minutes are the same cadence, seen from a different start.
  if (writes === 0) return "several minutes or more";
  const every = spanSeconds / writes;
  if (every < 20) return `${Math.round(every / 5) * 5} s`;
  if (every < 90) return "a minute";
  return "several minutes or more";
}

async function send(connection: KubeConnection, method: string, path: string, body?: unknown): Promise<void> {
  const response = await connection.request(path, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status >= 300 && response.status !== 404 && response.status !== 409)
    throw new Error(`HTTP ${response.status} ${text.slice(0, 300)}`);
}

function sleepUntil(at: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
}

/** Watches Pods, core/v1 Events, Nodes and the node Leases from now on, recording every event with its second. */
async function watchKubelets(connection: KubeConnection): Promise<{ events(): KubeletEvent[]; stop(): void }> {
  const seen: KubeletEvent[] = [];
  const abort = new AbortController();
  const began = Date.now();
  const paths: readonly (readonly [KubeletEvent["kind"], string])[] = [
    ["Pod", "/api/v1/pods"],
    ["Event", "/api/v1/events"],
    ["Node", "/api/v1/nodes"],
    ["Lease", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"],
  ];
  for (const [kind, path] of paths) {
    const list = await connection.getJson<{ metadata: { resourceVersion: string } }>(`${path}?limit=1`);
    void (async () => {
      const response = await connection.request(
        `${path}?watch=1&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=3600`,
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
  return { events: () => seen, stop: () => abort.abort() };
}
