/**
 * Benchmark `real-evidence` (issue 50): what the first announcement's evidence costs against a real kubelet —
 * reading a crashed container's last log lines through the API server (`pods/log` of the instance that crashed, served by the
 * kubelet from containerd's log file), a round of the kubelet's `/stats/summary`, and a down node's Lease — on the
 * real node of ../shared/kube (root; README.md). Each read is timed `TRIALS` times in a row; the median and p99
 * go to scripts/bench/results/real-evidence.json and docs/performance.md. Without a real node it says so in one
 * line and writes nothing. Run: bun scripts/bench/real-evidence.ts (also part of npm run bench).
 */
import { connectKube } from "../../src/kube/connection.ts";
import { readKubeletStats } from "../../src/kube/kubelet-stats.ts";
import { readNodeHeartbeat } from "../../src/kube/node-lease.ts";
import { readContainerLog } from "../../src/kube/pod-logs.ts";
import type { Node } from "../../src/model/kube.ts";
import { BUSYBOX } from "../../src/sim/stories/story.ts";
import { realNode, realNodeMissing } from "../../src/testing/real-node.ts";
import { publish } from "./report.ts";

const TRIALS = Number(process.env.BENCH_TRIALS ?? 100);
const missing = realNodeMissing();
if (missing) {
  console.log(`skipped: real-evidence: the real node cannot run here: ${missing}`);
  process.exit(0);
}
const node = await realNode();
const connection = await connectKube({ kubeconfigText: node.kube.kubeconfigText });
const send = async (method: string, path: string, body?: unknown) => {
  const r = await connection.request(path, {
    method,
    headers: { "content-type": "application/json" },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  await r.text();
  if (r.status >= 300 && r.status !== 409) throw new Error(`${method} ${path}: HTTP ${r.status}`);
};
await send("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "bench-evidence" } });
// A container that prints 60 lines (the last an error) and exits 1: a crash loop whose previous log is read.
await send("POST", "/api/v1/namespaces/bench-evidence/pods", {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "crash" },
  spec: {
    nodeName: node.name,
    terminationGracePeriodSeconds: 1,
    containers: [
      {
        name: "app",
        image: BUSYBOX,
        command: [
          "sh",
          "-c",
          'for i in $(seq 1 59); do echo "line $i of the startup"; done; echo "Error: boom"; exit 1',
        ],
      },
    ],
  },
});
// Until the kubelet has restarted it once: it has crashed, and its output is in the instance mon reads.
for (let i = 0; ; i++) {
  const pod = await connection.getJson<{ status?: { containerStatuses?: { restartCount?: number }[] } }>(
    "/api/v1/namespaces/bench-evidence/pods/crash",
  );
  if ((pod.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1) break;
  if (i > 600) throw new Error("the crash pod never restarted");
  await new Promise((r) => setTimeout(r, 100));
}
const nodeObject = await connection.getJson<Node>(`/api/v1/nodes/${node.name}`);

/** Times `what` TRIALS times; `before` runs untimed before each (what mon knows already, from its informer). */
async function timed<T>(
  what: (prepared: T) => Promise<boolean>,
  before: () => Promise<T> = async () => undefined as T,
): Promise<{ medianMs: number; p99Ms: number; failed: number }> {
  const ms: number[] = [];
  let failed = 0;
  for (let i = 0; i < TRIALS; i++) {
    const prepared = await before();
    const started = performance.now();
    if (!(await what(prepared))) failed++;
    ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);
  const at = (q: number) => Math.round(ms[Math.min(ms.length - 1, Math.floor(ms.length * q))]! * 10) / 10;
  return { medianMs: at(0.5), p99Ms: at(0.99), failed };
}

// The node's Lease is created about 10 s after it registered: wait for it, as a down node's would exist.
for (let i = 0; !("renewedAt" in (await readNodeHeartbeat(connection, node.name))); i++) {
  if (i > 600) throw new Error(`the node ${node.name} has no Lease after 60 s`);
  await new Promise((r) => setTimeout(r, 100));
}
/**
 * Whether the instance that printed the crash is the current one: as mon reads it (Finding.crashedInstance), the
 * current instance while it shows `terminated`, else the previous one (the kubelet keeps one dead instance).
 */
async function crashedIsCurrent(): Promise<boolean> {
  const pod = await connection.getJson<{ status?: { containerStatuses?: { state?: { terminated?: unknown } }[] } }>(
    "/api/v1/namespaces/bench-evidence/pods/crash",
  );
  return pod.status?.containerStatuses?.[0]?.state?.terminated !== undefined;
}
const answeredOn = new Map<string, string>();
const result = {
  trials: TRIALS,
  log: await timed(async (current: boolean) => {
    const read = await readContainerLog(connection, {
      namespace: "bench-evidence",
      pod: "crash",
      container: "app",
      previous: !current,
    });
    return "text" in read && read.text.includes("Error: boom");
  }, crashedIsCurrent),
  stats: await timed(async () => {
    const round = await readKubeletStats({ connection, nodes: [nodeObject], insecureSkipVerify: true, answeredOn });
    return round.summaries.has(node.name);
  }),
  lease: await timed(async () => "renewedAt" in (await readNodeHeartbeat(connection, node.name))),
};
await send("DELETE", "/api/v1/namespaces/bench-evidence");
const row = (what: string, r: { medianMs: number; p99Ms: number; failed: number }) =>
  `| ${what} | ${r.medianMs} | ${r.p99Ms} | ${r.failed} of ${TRIALS} |`;
publish(
  "real-evidence",
  result,
  [
    "| read (real kubelet v1.32.13, containerd 1.6) | median (ms) | p99 (ms) | failed |",
    "|---|---|---|---|",
    row(
      "a crashed container's last 50 log lines, of the instance that crashed (`pods/log` through the API server)",
      result.log,
    ),
    row("a round of `/stats/summary` (one node, read at its Hostname)", result.stats),
    row("a node's Lease (`kube-node-lease`)", result.lease),
  ].join("\n"),
);
process.exit(0);
