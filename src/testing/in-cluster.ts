import { spawn } from "node:child_process";
import { join } from "node:path";
import { REAL_NODE_TAINT } from "../sim/standin/story-cluster.ts";
import type { CaptureServer } from "./capture-server.ts";
import { BUSYBOX, type RealNode } from "./real-node.ts";

/**
 * What the tests of mon running in the real node's pods share (src/e2e/in-cluster*.test.ts, issue 51): waiting on
 * the cluster, mon's pods and their processes, and what reached a webhook receiver.
 */

/** Polls `condition` every half second until it returns a value (not undefined/false); throws naming `what`. */
export async function poll<T>(
  what: string,
  timeoutMs: number,
  condition: () => Promise<T | undefined | false>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** `kubectl <args> -o json`, parsed; throws with kubectl's output when it fails. */
export async function kubectlJson<T>(node: RealNode, args: readonly string[]): Promise<T> {
  const r = await node.kube.kubectl([...args, "-o", "json"]);
  if (r.status !== 0) throw new Error(`kubectl ${args.join(" ")}: ${r.output}`);
  return JSON.parse(r.output) as T;
}

/** The fields of a Pod these tests read. */
export interface Pod {
  metadata: { name: string; uid: string; deletionTimestamp?: string };
  status?: {
    phase?: string;
    podIP?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { containerID?: string; restartCount: number; ready: boolean; started?: boolean }[];
  };
}

/** Whether the pod's Ready condition is True. */
export const podReady = (p: Pod) =>
  p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;

/** mon's pods in `namespace` (label app.kubernetes.io/name=mon). */
export async function monPods(node: RealNode, namespace: string): Promise<Pod[]> {
  const list = await kubectlJson<{ items: Pod[] }>(node, [
    "-n",
    namespace,
    "get",
    "pods",
    "-l",
    "app.kubernetes.io/name=mon",
  ]);
  return list.items;
}

/** The host pid of a pod's first container (the node runs on this machine), through its containerd. */
export function containerPid(node: RealNode, pod: Pod): number {
  const id = pod.status?.containerStatuses?.[0]?.containerID?.replace(/^containerd:\/\//, "");
  const tasks = node.ctr(["tasks", "ls"]).output.split("\n");
  const row = tasks.find((l) => id && l.startsWith(id));
  if (!row) throw new Error(`no containerd task for ${pod.metadata.name} (${id})`);
  return Number(row.split(/\s+/)[1]);
}

/** Follows a pod's log to its container's end (kubectl logs -f): what it said up to its last line. */
export function followLog(node: RealNode, namespace: string, pod: string): Promise<string> {
  return new Promise((done) => {
    const child = spawn(join(node.kube.stateDir, "bin", "kubectl"), [
      "--kubeconfig",
      node.kube.kubeconfigPath,
      "-n",
      namespace,
      "logs",
      "-f",
      pod,
    ]);
    let out = "";
    child.stdout.on("data", (b: Buffer) => (out += b.toString()));
    child.stderr.on("data", (b: Buffer) => (out += b.toString()));
    child.on("close", () => done(out));
  });
}

/** What /health says, as far as these tests read it (docs/health.md). */
export interface HealthReport {
  status: string;
  /** `held` (leading), `waiting` (a standby), `not_used`. */
  stateLock?: string;
  components: Record<string, { state: string; reason?: string }>;
  coverage: { kinds: { kind: string; reason: string }[] };
  lock?: { holder?: string };
}

/** GET `<base>/health` (base: `http://host:port`). */
export async function health(base: string): Promise<HealthReport> {
  return (await fetch(`${base}/health`)).json() as never;
}

/**
 * A Deployment of one busybox pod on the real node whose container runs `script` (restarted by the kubelet when
 * it exits): a real crash loop when the script fails.
 */
export function busyboxDeployment(namespace: string, name: string, script: string): object {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          nodeSelector: { "kubernetes.io/hostname": "localhost" },
          tolerations: [{ key: REAL_NODE_TAINT, operator: "Exists", effect: "NoSchedule" }],
          terminationGracePeriodSeconds: 0,
          containers: [{ name: "app", image: BUSYBOX, imagePullPolicy: "Never", command: ["sh", "-c", script] }],
        },
      },
    },
  };
}

/** One message mon's webhook provider sent (docs/providers/webhook.md). */
export interface WebhookMessage {
  action: string;
  incidentId: string;
  text: string;
  /** A roll-up's, digest's or summary's incidents. */
  covers?: string[];
  delivery?: string;
}

/** The messages of incident `incidentId`'s thread that reached `hook` (a startup summary may name it too: not its thread). */
export const threadAt = (hook: CaptureServer, incidentId: string): WebhookMessage[] =>
  hook.requests.map((r) => r.json() as WebhookMessage).filter((m) => m.incidentId === incidentId);

/**
 * How often incident `incidentId` was announced at `hook`: in a message of its own, or in a roll-up that covers it
 * (incidents due in the same pass are announced together, docs/delivery.md).
 */
export const announcesOf = (hook: CaptureServer, incidentId: string): number =>
  hook.requests
    .map((r) => r.json() as WebhookMessage)
    .filter(
      (m) =>
        m.action === "announce" &&
        (m.incidentId === incidentId || (m.delivery === "roll-up" && m.covers?.includes(incidentId))),
    ).length;

/**
 * What a person would look at when mon's pods in `namespace` do not come up: the pods and claims, the events, and
 * each pod's last log lines — for a test's failure message.
 */
export async function podsReport(node: RealNode, namespace: string): Promise<string> {
  const run = async (args: readonly string[]) => (await node.kube.kubectl(args)).output.trim();
  const parts = [
    await run(["-n", namespace, "get", "pods,pvc", "-o", "wide"]),
    await run(["-n", namespace, "get", "events", "--sort-by=.lastTimestamp"]),
  ];
  for (const pod of await monPods(node, namespace).catch(() => []))
    parts.push(
      `logs of ${pod.metadata.name}:\n${await run(["-n", namespace, "logs", pod.metadata.name, "--tail=25"])}`,
    );
  return parts.join("\n\n");
}
