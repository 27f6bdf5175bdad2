import { FATE_ANNOTATION, INIT_FATE_ANNOTATION, OUTPUT_ANNOTATION } from "../controllers/index.ts";
import type { KubeObject } from "../store.ts";
import type { StoryCluster } from "./cluster.ts";

/** The namespace every story of the catalogue runs in. */
export const NS = "shop";

/** One thing a story does, `t` seconds after it starts, as a user with kubectl would. */
export interface StoryStep {
  readonly t: number;
  readonly say: string;
  run(cluster: StoryCluster): void;
}

/**
 * A failure story told to the simulator's controllers (docs/simulator.md "Stories"): the objects a user
 * creates and what they change later, at seconds from the start; everything else — pods, statuses, Events,
 * EndpointSlices, node conditions — is the controllers' work, on whatever timing profile they run with. Stories
 * are written so that the failure lasts long enough to be told, and its fix long enough to be seen, under every
 * legal timing (src/sim/controllers/timing-profiles.ts).
 */
export interface Story {
  readonly name: string;
  /** What happens, in one sentence. */
  readonly description: string;
  /** Ready nodes `worker-1..N`. */
  readonly nodes: number;
  /** The nodes joined the cluster a moment before (young-node grace, spec 1.8); otherwise a day before. */
  readonly youngNodes?: boolean;
  readonly steps: readonly StoryStep[];
  /** Seconds after the start of the failure's fix, if it is fixed. */
  readonly fixedAt?: number;
  /** Seconds after the start by which everything the story sets in motion has happened, under any legal timing. */
  readonly lengthSeconds: number;
  /** The same story at the pace a real control plane can afford (issue 40), valid under QUICK_TIMING. */
  readonly quick: QuickSchedule;
  /**
   * Told on the real node too (issue 50), at its quick schedule, which then holds under the real kubelet's
   * default timing as well (RECORDED_TIMING: its crash back-off 10 s doubling to 5 minutes; checked on the
   * simulator): every container does what the story's signals need by its own command (busybox), the simulated
   * kubelet's annotations only modelling it. `together` side by side with the others; `alone` when it acts on
   * the node itself (its kubelet stopped or restarted), so on its own.
   */
  readonly realNode?: "together" | "alone";
  /**
   * Seconds after the start when mon starts watching (issue 52 item 1: what already fails then has no known
   * onset); without it mon watches from before the start. Only the trust stories (./trust.ts) set it.
   */
  readonly monStartsAt?: number;
  /** mon's configuration for the story (a silence), merged into the runner's. */
  readonly config?: Readonly<Record<string, unknown>>;
}

/**
 * A story retimed for the real control plane in CI (issue 40): the kubelet stand-in runs it on QUICK_TIMING
 * (src/sim/controllers/timing.ts: the kubelet's reduced back-off, at most 10 s), so a failure is told within a
 * minute and its fix can follow sooner than under the slowest legal timing; mon's own rules (holds, the
 * 5-minute cooldown, the page after 5 minutes, the young-node grace) still set the pace. The simulator checks the
 * quick schedule under QUICK_TIMING too, so the real control plane is judged against a schedule known to tell
 * the expected conversation.
 */
export interface QuickSchedule {
  /** The second of each step, in the order of `steps`. */
  readonly at: readonly number[];
  readonly fixedAt?: number;
  readonly lengthSeconds: number;
  /** The second mon starts watching, when the story has `monStartsAt`. */
  readonly monStartsAt?: number;
  /** Threads fixed at another second than `fixedAt`, by incident id (a story of several failures). */
  readonly fixes?: Readonly<Record<string, number>>;
  /** What is told within `lengthSeconds` when that is less than the whole conversation, and why. */
  readonly threads?: readonly string[];
  readonly why?: string;
}

/** The story at its quick schedule: each step at its `quick.at` second, fixed and ended as `quick` says. */
export function quickStory(story: Story): Story {
  const { quick } = story;
  if (quick.at.length !== story.steps.length)
    throw new Error(`story ${story.name}: quick.at has ${quick.at.length} seconds for ${story.steps.length} steps`);
  return {
    ...story,
    steps: story.steps.map((step, i) => ({ ...step, t: quick.at[i]! })),
    ...(quick.fixedAt !== undefined ? { fixedAt: quick.fixedAt } : {}),
    ...(quick.monStartsAt !== undefined ? { monStartsAt: quick.monStartsAt } : {}),
    lengthSeconds: quick.lengthSeconds,
  };
}

// --- helpers the stories share (what a user would write with kubectl) ---

/** A Deployment of `replicas` pods labelled `app: name`, one container `name` running `image`. */
export function deployment(
  name: string,
  image: string,
  replicas: number,
  pod: { spec?: KubeObject; annotations?: Record<string, string> } = {},
): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { namespace: NS, name, labels: { app: name } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name }, ...(pod.annotations ? { annotations: pod.annotations } : {}) },
        spec: { containers: [{ name, image }], ...pod.spec },
      },
    },
  };
}

/** A ClusterIP Service selecting `app: name` on port 80. */
export function service(name: string, spec: KubeObject = {}): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { namespace: NS, name },
    spec: { selector: { app: name }, ports: [{ name: "http", port: 80 }], ...spec },
  };
}

/** Sets (or with undefined clears) the simulated kubelet's fate of a pod, and what it prints: `kubectl annotate pod`. */
export function setFate(cluster: StoryCluster, pod: string, fate: string | undefined, output?: string): void {
  cluster.annotatePod(pod, { [FATE_ANNOTATION]: fate ?? null, ...(output ? { [OUTPUT_ANNOTATION]: output } : {}) });
}

/** Sets the fate (and output) of every pod of `app`: its process fails on every start, or runs again. */
export function setFates(cluster: StoryCluster, app: string, fate: string | undefined, output?: string): void {
  for (const pod of cluster.podsOf(app)) setFate(cluster, pod.metadata.name, fate, output);
}

/** What a container dialling the orders database prints when it refuses connections. */
export const ORDERS_DB_REFUSED = "Error: dial tcp 10.96.14.7:5432: connect: connection refused\n";

/** The orders database outside the cluster: a Service without selector at ClusterIP 10.96.14.7, port 5432. */
export function ordersDb(): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { namespace: NS, name: "orders-db" },
    spec: { clusterIP: "10.96.14.7", clusterIPs: ["10.96.14.7"], ports: [{ name: "postgres", port: 5432 }] },
  };
}

/** The annotations that make a pod template's init containers fail. */
export const INIT_CRASH = { [INIT_FATE_ANNOTATION]: "crash" };

/** The annotations that give a pod template a fate. */
export function fate(value: string, output?: string): Record<string, string> {
  return { [FATE_ANNOTATION]: value, ...(output ? { [OUTPUT_ANNOTATION]: output } : {}) };
}

/** Deletes an object as `kubectl delete` does (pods with their grace period). */
export function remove(cluster: StoryCluster, plural: string, name: string, group = "", version = "v1"): void {
  cluster.remove(plural, name, group, version);
}

// --- real pods (issue 50): what a container does is its command's doing ---

/** The image every real node has (a shell and busybox's applets); stories' containers run their commands in it. */
export const BUSYBOX = "localhost/busybox:1";

/**
 * A container of `BUSYBOX` running `script` in its shell: what it does on a real node. The simulated kubelet does
 * not run it; a story models it with the pod's fate annotations.
 */
export function sh(name: string, script: string, extra: KubeObject = {}): KubeObject {
  return { name, image: BUSYBOX, command: ["sh", "-c", script], ...extra };
}

/**
 * A shell condition true from story step `from` until step `until` (exclusive, or for good without one), as the
 * container reads the clock: the container's own way to change at a step (a handler fixed in place, a dependency
 * back), where the simulated kubelet reads the step's annotation.
 */
export function between(cluster: StoryCluster, from: number, until?: number): string {
  const s = (step: number) => Math.floor(cluster.stepAt(step) / 1000);
  return `[ "$(date +%s)" -ge ${s(from)} ]${until === undefined ? "" : ` && [ "$(date +%s)" -lt ${s(until)} ]`}`;
}

/**
 * A small web server on port 8080 whose `path` (under /www) answers 404 while `failing` (a shell condition) holds
 * and 200 otherwise, checked every second: the handler a readiness or liveness probe asks.
 */
export function serveHealth(path: string, failing: string): string {
  return [
    "mkdir -p /www",
    `(while true; do if ${failing}; then rm -f /www/${path}; else echo ok > /www/${path}; fi; sleep 1; done) &`,
    "exec httpd -f -p 8080 -h /www",
  ].join("\n");
}
