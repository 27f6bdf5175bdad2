import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectKube } from "../kube/connection.ts";
import { podCache } from "./pod-cache.ts";
import { createInformer } from "../kube/informer.ts";
import { createSystemClock } from "../runtime/clock.ts";
import { createSilentLogger } from "../runtime/logger.ts";
import { QUICK_TIMING } from "../sim/controllers/index.ts";
import { startKubeletStandIn } from "../sim/standin/standin.ts";
import { realStoryCluster, type StoryPlace } from "../sim/standin/story-cluster.ts";
import type { FaultStory } from "../sim/stories/faults.ts";
import type { KubeObject } from "../sim/store.ts";
import { type CaptureServer, startCaptureServer } from "./capture-server.ts";
import { startLicenseServer } from "./license-server.ts";
import { pastYoungNodeGrace, placedExpectation } from "./real-stories.ts";
import { type OwnControlPlane, startControlPlane } from "./real-kube.ts";
import { type Installation, type Replica, startReplica } from "./replicas.ts";
import { type Told, toldOf } from "./replay.ts";
import { judgeTimed, type TimedJudgement } from "./timing/invariants.ts";

/** What one fault story told, and how it was judged. */
export interface FaultStoryResult {
  readonly story: string;
  readonly told: readonly Told[];
  readonly judgement: TimedJudgement;
  /** The fault invariants it broke (a replica exited, a thread left open), one sentence each. */
  readonly broken: readonly string[];
  /** Seconds from the story's start to each fault and to its component's return. */
  readonly faults: readonly { readonly say: string; readonly at: number; readonly back: number }[];
  readonly seconds: number;
}

/**
 * How long after the control plane runs again a fault story goes on at least, seconds: the node lifecycle
 * controller's grace (40 s) and a node loss's hold (a minute) after it, with room to spare.
 */
const AFTER_RETURN_SECONDS = 150;

/** The label every fault story's node carries, and every pod of the stories is pinned to. */
const LABEL: readonly [string, string] = ["stories.mon.io/story", "faults"];

/**
 * Tells each fault story (src/sim/stories/faults.ts) in turn on a control plane of its own — the faults stop its
 * components, which no other test may see — with three stand-in nodes registered first (aged past mon's
 * young-node grace, 10 minutes), and two Pro `mon run` processes watching (one leads, one stands by, a Lease in
 * namespace `mon`), delivering to one webhook. Each story is judged by the stories' invariants against its
 * threads, plus: no mon process exits because the control plane failed, and every thread announced (a blind
 * spot's, the outage's) is resolved by the story's end. `trace` says how it goes.
 */
export async function tellFaultStories(
  stories: readonly FaultStory[],
  trace: (line: string) => void = () => {},
): Promise<FaultStoryResult[]> {
  const kube = await startControlPlane();
  const clock = createSystemClock();
  const logger = createSilentLogger();
  const connection = await connectKube({ kubeconfigText: kube.kubeconfigText });
  const standIn = await startKubeletStandIn({
    connection,
    clock,
    logger,
    nodes: [1, 2, 3].map((n) => ({
      name: `faults-worker-${n}`,
      labels: { [LABEL[0]]: LABEL[1] },
      address: "127.0.0.1",
    })),
    timing: QUICK_TIMING,
  });
  const registeredAt = Date.now();
  const hook = await startCaptureServer();
  const licenses = await startLicenseServer(() => Date.now());
  const replicas: Replica[] = [];
  const podInformer = podCache(connection, clock, logger);
  const { pods } = podInformer;
  podInformer.start();
  // Each node's Ready condition as it changes, epoch ms: what the node lifecycle controller made of a fault.
  const readiness: { at: number; node: string; ready: string }[] = [];
  const nodeInformer = createInformer({
    connection,
    kind: { kind: "Node", path: "/api/v1/nodes" },
    clock,
    logger,
    onEvent: (_type, o) => {
      const node = o.metadata.name as string;
      const ready = (o.status?.conditions ?? []).find((c: KubeObject) => c.type === "Ready")?.status ?? "none";
      const last = readiness.findLast((r) => r.node === node);
      if (last?.ready !== ready) readiness.push({ at: Date.now(), node, ready });
    },
    onState: () => {},
  });
  nodeInformer.start();
  try {
    await post(connection, "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "mon" } });
    const dir = mkdtempSync(join(tmpdir(), "mon-faults-"));
    const kubeconfig = join(dir, "kubeconfig");
    writeFileSync(kubeconfig, kube.kubeconfigText);
    const installation: Installation = {
      dir,
      kubeconfig,
      data: join(dir, "data"),
      webhookUrl: `${hook.url}/mon`,
      licenseUrl: licenses.url,
      licenseKey: licenses.addLicense(),
    };
    for (const name of ["mon-a", "mon-b"]) replicas.push(await startReplica(installation, name));
    trace("two replicas started; the nodes age past the young-node grace");
    await pastYoungNodeGrace(registeredAt);
    const results: FaultStoryResult[] = [];
    for (const story of stories)
      results.push(await tell(story, { kube, connection, standIn, hook, pods, replicas, trace, readiness }));
    return results;
  } finally {
    podInformer.stop();
    nodeInformer.stop();
    for (const r of replicas) r.child.kill("SIGKILL");
    standIn.stop();
    await hook.close();
    await licenses.close();
    kube.close();
  }
}

/**
 * One story's result as lines: whether it told what it should, its faults, each message with its time from
 * the story's start and from the fault (seconds), and what it broke.
 */
export function faultStoryLines(r: FaultStoryResult): string[] {
  const ok = r.judgement.same && r.judgement.violations.length === 0 && r.broken.length === 0;
  const fault = r.faults[0]?.at;
  return [
    `${ok ? "as expected" : "DIFFERS"} ${r.story} (${Math.round(r.seconds)} s): ${r.judgement.conversation.join(" | ") || "nothing told"}`,
    ...r.faults.map((f) => `  fault: ${f.say} at ${f.at.toFixed(1)} s, running again at ${f.back.toFixed(1)} s`),
    ...r.told.map(
      (m) =>
        `  ${m.t.toFixed(1)} s${fault !== undefined ? ` (fault ${m.t - fault >= 0 ? "+" : ""}${(m.t - fault).toFixed(1)} s)` : ""} ${m.action} ${m.incidentId}: ${m.text.split("\n")[0]}`,
    ),
    ...[...r.judgement.violations, ...r.broken].map((v) => `  broken: ${v}`),
  ];
}

// --- internal ---

async function tell(
  story: FaultStory,
  world: {
    kube: OwnControlPlane;
    connection: Awaited<ReturnType<typeof connectKube>>;
    standIn: Awaited<ReturnType<typeof startKubeletStandIn>>;
    hook: CaptureServer;
    pods: ReadonlyMap<string, KubeObject>;
    replicas: readonly Replica[];
    trace: (line: string) => void;
    readiness: readonly { at: number; node: string; ready: string }[];
  },
): Promise<FaultStoryResult> {
  const { kube, connection, standIn, hook, trace } = world;
  const place: StoryPlace = {
    namespace: story.name,
    nodePrefix: "faults",
    nodeLabel: LABEL,
    clusterIps: {},
  };
  await post(connection, "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: story.name } });
  const firstMessage = hook.requests.length;
  const startedAt = Date.now();
  const cluster = realStoryCluster({
    connection,
    kubelets: {
      stop: (node) => standIn.stopKubelet(node),
      start: (node) => standIn.startKubelet(node),
      async restart(node) {
        standIn.stopKubelet(node);
        await standIn.startKubelet(node);
      },
    },
    place,
    pods: () => world.pods.values(),
    schedule: { zeroMs: startedAt, seconds: story.steps.map((s) => s.t) },
  });
  const timers: ReturnType<typeof setTimeout>[] = [];
  const at = (t: number, run: () => void) =>
    timers.push(setTimeout(run, Math.max(0, startedAt + t * 1000 - Date.now())));
  const faults: { say: string; at: number; back: number }[] = [];
  for (const step of story.steps) at(step.t, () => step.run(cluster));
  for (const fault of story.faults)
    at(fault.t, () => {
      const began = (Date.now() - startedAt) / 1000;
      kube.kill(fault.component);
      trace(`${story.name} +${began.toFixed(0)} s: ${fault.say}`);
      at(fault.t + fault.downSeconds, () => {
        void kube.startStopped().then(
          () => {
            const back = (Date.now() - startedAt) / 1000;
            faults.push({ say: fault.say, at: began, back });
            trace(`${story.name} +${back.toFixed(0)} s: the control plane runs again`);
          },
          (error: Error) => trace(`${story.name}: the control plane did not start again: ${error.message}`),
        );
      });
      // A component that exits later on its own (the controller manager losing its Lease while the server was
      // away) is started again as its supervisor would, within half a minute.
      for (const after of [15, 30, 45])
        at(fault.t + fault.downSeconds + after, () => void kube.startStopped().catch(() => {}));
    });
  trace(`${story.name}: started`);
  const toldSoFar = (): Told[] =>
    hook.requests.slice(firstMessage).map((r) => {
      const body = r.json();
      // The outage's thread is the Lease's term: the story names it T.
      return toldOf(
        { ...body, incidentId: String(body.incidentId).replace(/^api-unreachable@\d+$/, "api-unreachable@T") },
        (r.receivedAt - startedAt) / 1000,
      );
    });
  const expected = placedExpectation(
    {
      story: story.name,
      source: "controllers",
      threads: story.threads,
      why: story.why,
      ...(story.fixes ? { fixes: story.fixes } : {}),
    },
    {
      ...place,
      nodes: { "worker-1": "faults-worker-1", "worker-2": "faults-worker-2", "worker-3": "faults-worker-3" },
    },
  );
  const last = Math.max(...story.steps.map((s) => s.t), story.fixedAt ?? 0);
  for (;;) {
    const elapsed = (Date.now() - startedAt) / 1000;
    if (elapsed >= story.lengthSeconds) break;
    const told = toldSoFar();
    const back = faults.length === story.faults.length ? Math.max(0, ...faults.map((f) => f.back)) : undefined;
    // Its whole conversation told and closed, a minute after its last step, and long enough after the control
    // plane's return for what follows one (the node lifecycle controller's grace, a hold) to have shown.
    if (
      back !== undefined &&
      elapsed > last + 60 &&
      elapsed > back + AFTER_RETURN_SECONDS &&
      elapsed - Math.max(0, ...told.map((m) => m.t)) >= 60 &&
      judgeTimed(expected, story.fixedAt, told).same &&
      openThreads(told).length === 0
    )
      break;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  for (const t of timers) clearTimeout(t);
  // Whatever a fault stopped runs again before the next story (a component that exited on its own too).
  await kube.startStopped();
  const told = toldSoFar();
  const judgement = judgeTimed(expected, story.fixedAt, told);
  const broken = [
    ...world.replicas
      .filter((r) => r.child.exitCode !== null)
      .map((r) => `${r.name} exited (${r.child.exitCode}): ${r.log.join("").slice(-500)}`),
    ...openThreads(told).map((id) => `${id} was announced and never resolved`),
    ...restoredAmiss(told),
  ];
  await connection
    .request(`/api/v1/namespaces/${story.name}`, { method: "DELETE" })
    .then((r) => r.body?.cancel())
    .catch(() => {});
  trace(`${story.name}: ${judgement.conversation.join(" | ") || "nothing told"}`);
  // Each message as it ends, so a run cut short still says what each told story was told.
  for (const m of told) trace(`  ${m.t.toFixed(1)} s ${m.action} ${m.incidentId}: ${m.text.split("\n")[0]}`);
  for (const v of [...judgement.violations, ...broken]) trace(`  broken: ${v}`);
  for (const r of world.readiness.filter((r) => r.at >= startedAt))
    trace(`  ${((r.at - startedAt) / 1000).toFixed(1)} s node ${r.node} Ready=${r.ready}`);
  return { story: story.name, told, judgement, broken, faults, seconds: (Date.now() - startedAt) / 1000 };
}

/**
 * The threads announced and not resolved: what a story must not end with. A notice and a restored-incident
 * summary are no threads of their own (the summary names threads that go on in theirs).
 */
function openThreads(told: readonly Told[]): string[] {
  const resolved = new Set(told.filter((m) => m.action === "resolve").map((m) => m.incidentId));
  const announced = told
    .filter((m) => m.action === "announce" && m.delivery !== "notice" && m.delivery !== "restored summary")
    .map((m) => m.incidentId);
  return [...new Set(announced)].filter((id) => !resolved.has(id));
}

/**
 * A restored-incident summary (a replica that took over, or restarted, continuing threads) that names a thread
 * not open then: one never announced, or already resolved.
 */
function restoredAmiss(told: readonly Told[]): string[] {
  const out: string[] = [];
  told.forEach((m, i) => {
    if (m.delivery !== "restored summary") return;
    const before = told.slice(0, i);
    for (const id of m.covers ?? []) {
      const thread = before.filter((b) => b.incidentId === id || (b.action === "announce" && b.covers?.includes(id)));
      if (thread.at(-1)?.action === "resolve" || !thread.some((b) => b.action === "announce"))
        out.push(`restored summary at ${m.t.toFixed(1)} s names ${id}, not open then`);
    }
  });
  return out;
}

async function post(connection: Awaited<ReturnType<typeof connectKube>>, path: string, body: unknown): Promise<void> {
  const response = await connection.request(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  await response.body?.cancel();
}
