/**
 * mon on a real, healthy, mostly quiet control plane for `--minutes N` (default 30; issue 40): the real
 * control plane of ../shared/kube (src/testing/real-kube.ts), three nodes run by the kubelet stand-in, one
 * Deployment of three pods behind a Service, scaled once every ten minutes — so most kinds never change and get
 * no bookmark — and the real daemon watching it all. Prints what mon told about its own sight (it must be
 * nothing) and how many watches it found stalled (it must be none), and writes them to
 * scripts/bench/results/real-soak.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectKube } from "../src/kube/connection.ts";
import { createSystemClock } from "../src/runtime/clock.ts";
import { createSilentLogger } from "../src/runtime/logger.ts";
import { QUICK_TIMING } from "../src/sim/controllers/index.ts";
import { startKubeletStandIn } from "../src/sim/standin/standin.ts";
import { realKube, realKubeMissing } from "../src/testing/real-kube.ts";
import { startRealDaemon } from "../src/testing/real-run.ts";

const minutes = Number(process.argv[process.argv.indexOf("--minutes") + 1] ?? 30) || 30;
const missing = realKubeMissing();
if (missing) {
  console.error(`real-soak: the real control plane cannot run: ${missing}`);
  process.exit(1);
}
const kube = await realKube();
const connection = await connectKube({ kubeconfigText: kube.kubeconfigText });
const standIn = await startKubeletStandIn({
  connection,
  clock: createSystemClock(),
  logger: createSilentLogger(),
  timing: QUICK_TIMING,
  nodes: [1, 2, 3].map((n) => ({ name: `soak-${n}`, address: "127.0.0.1" })),
});
await kube.kubectl(["create", "namespace", "soak"]);
await new Promise((resolve) => setTimeout(resolve, 3_000));
await kube.kubectl(["-n", "soak", "create", "deployment", "web", "--image=registry.example/web:1.0", "--replicas=3"]);
await kube.kubectl(["-n", "soak", "expose", "deployment", "web", "--port=80"]);
const run = await startRealDaemon({ kubeconfigText: kube.kubeconfigText, clusterName: "soak" });
const started = Date.now();
for (let m = 1; m <= minutes; m++) {
  await new Promise((resolve) => setTimeout(resolve, 60_000));
  if (m % 10 === 0)
    await kube.kubectl(["-n", "soak", "scale", "deployment", "web", `--replicas=${m % 20 === 0 ? 3 : 4}`]);
  console.log(`${m} min: ${run.told().length} messages, ${await run.stalls()} stalls`);
}
const told = run.told();
const result = {
  minutes: Math.round((Date.now() - started) / 60_000),
  messages: told.map((m) => `${m.t.toFixed(0)} s ${m.incidentId}: ${m.text.split("\n")[0]}`),
  blindNotices: told.filter((m) => m.delivery === "notice").length,
  stalls: await run.stalls(),
  standInFailures: standIn.failures().length,
};
console.log(JSON.stringify(result, null, 2));
const dir = join(import.meta.dirname, "bench", "results");
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, "real-soak.json"), `${JSON.stringify(result, null, 2)}\n`);
await run.stop();
standIn.stop();
process.exit(result.blindNotices === 0 && result.stalls === 0 ? 0 : 1);
