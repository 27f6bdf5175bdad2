/**
 * Chaos: leader kills during a storm of incidents (docs/reliability.md). Two `mon run` replicas (Pro, one
 * shared state volume) watch the simulator; each round K Deployments start crash-looping and, at a random
 * moment of the storm, the leader is killed with SIGKILL; the standby takes over and the killed replica comes
 * back as the new standby (as the kubelet restarts a container). At the end every crash loop is fixed. Then
 * it counts, per incident, what the webhook received: lost announces and resolves, announces repeated under
 * the same message id (at-least-once redelivery, same dedup key and conversation) and announces of a new
 * revision (a doubled conversation). Usage: bun scripts/chaos.ts [--rounds N] [--per-round K] [--seed S]
 * [--write] (the result into docs/reliability.md between its markers). Exits 1 when anything was lost or a
 * conversation doubled.
 */
import { join } from "node:path";
import { startSimulator } from "../src/sim/simulator.ts";
import { deployment, ownerRef, runningPod } from "../src/sim/scenarios/builders.ts";
import { type CapturedRequest, startCaptureServer, waitUntil } from "../src/testing/capture-server.ts";
import { crashPod, seedShop } from "../src/testing/cluster.ts";
import { startLicenseServer } from "../src/testing/license-server.ts";
import { createInstallation, type Replica, startReplica } from "../src/testing/replicas.ts";
import { simRequest } from "../src/testing/sim-client.ts";
import { writeBetweenMarkers } from "./generated-file.ts";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const rounds = arg("rounds", 5);
const perRound = arg("per-round", 4);
let seed = arg("seed", 1);
// A small deterministic generator, so a run can be repeated with the same kill moments.
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};

const WORDS = [
  "alpha",
  "bravo",
  "charlie",
  "delta",
  "echo",
  "foxtrot",
  "golf",
  "hotel",
  "india",
  "juliett",
  "kilo",
  "lima",
  "mike",
  "november",
  "oscar",
  "papa",
  "quebec",
  "romeo",
  "sierra",
  "tango",
  "uniform",
  "victor",
  "whiskey",
  "xray",
  "yankee",
  "zulu",
];
const sim = await startSimulator();
const hook = await startCaptureServer();
const licenses = await startLicenseServer(() => Date.now());
sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "mon" } });
sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "storm" } });
seedShop(sim, Date.now());
const installation = createInstallation(sim, {
  webhookUrl: `${hook.url}/mon`,
  licenseUrl: licenses.url,
  licenseKey: licenses.addLicense(),
});
/** API requests the simulator served so far, by verb (its apiserver_request_total), and lists by resource. */
const requests = async (): Promise<Record<string, number>> => {
  const text = (await simRequest(sim, "GET", "/metrics")).text;
  const byVerb: Record<string, number> = {};
  for (const m of text.matchAll(/^apiserver_request_total\{.*[{,]resource="([^"]*)".*verb="(\w+)".*\} (\d+)$/gm)) {
    byVerb[m[2]!] = (byVerb[m[2]!] ?? 0) + Number(m[3]);
    if (m[2] === "LIST") byVerb[`LIST ${m[1]}`] = (byVerb[`LIST ${m[1]}`] ?? 0) + Number(m[3]);
  }
  return byVerb;
};
const minus = (a: Record<string, number>, b: Record<string, number>) =>
  Object.fromEntries(Object.keys({ ...a, ...b }).map((k) => [k, (a[k] ?? 0) - (b[k] ?? 0)]));
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));
// The pods of a mid-sized namespace, so a relist would show.
for (let i = 1; i <= 20; i++) {
  const { deployment: d, replicaSet } = deployment("mon", `filler-${i}`, 10, "ghcr.io/filler:1", "abc12");
  const dep = sim.apply(d);
  const rs = sim.apply({ ...replicaSet, metadata: { ...replicaSet.metadata, ownerReferences: [ownerRef(dep)] } });
  for (let p = 0; p < 10; p++) sim.apply(runningPod(rs, `p${p}`, `n${(p % 3) + 1}`, Date.now() - 3_600_000));
}
// Healthy neighbours in the storm's namespace, as many as will fail: half a namespace failing is a storm of
// separate incidents, not a namespace outage (spec 1.3 folds those into one).
for (let i = 1; i <= rounds * perRound; i++) {
  const { deployment: d, replicaSet } = deployment("storm", `steady-${i}`, 1, "ghcr.io/steady:1", "abc12");
  const dep = sim.apply(d);
  const rs = sim.apply({ ...replicaSet, metadata: { ...replicaSet.metadata, ownerReferences: [ownerRef(dep)] } });
  sim.apply(runningPod(rs, "p0", `n${(i % 3) + 1}`, Date.now() - 3_600_000));
}
// The extra API load of a warm standby: a leader alone for a minute, then with a standby for a minute.
const live: Replica[] = [await startReplica(installation, "mon-a")];
// Whatever happens, no replica outlives the script.
process.on("exit", () => {
  for (const r of live) r.child.kill("SIGKILL");
});
await waitUntil(() => live[0]!.leads(), "a first leader", 30_000);
await waitUntil(() => hook.requests.some((r) => r.json().reason === "Startup"), "the startup message", 30_000);
const MEASURE_MS = arg("measure-seconds", 60) * 1000;
const c0 = await requests();
await settle(MEASURE_MS);
const c1 = await requests();
live.push(await startReplica(installation, "mon-b"));
await settle(MEASURE_MS);
const c2 = await requests();
const leaderMinute = minus(c1, c0);
const standbyMinute = minus(minus(c2, c1), leaderMinute);
const relists: number[] = [];
/** A replica's mon_watcher_syncs_total: its cache syncs (the first, and one per relist). */
const syncs = async (r: Replica) =>
  Number(/^mon_watcher_syncs_total (\d+)$/m.exec(await (await fetch(`${r.health}/metrics`)).text())?.[1] ?? Number.NaN);
const stopAll = async () => {
  for (const r of live) r.child.kill("SIGKILL");
  await hook.close();
  await licenses.close();
  await sim.stop();
};

/** The replica that leads now: it logged the acquisition and is alive. */
const leader = () => live.find((r) => r.leads() && r.child.exitCode === null && r.child.signalCode === null);
const messages = () => hook.requests.map((r: CapturedRequest) => r.json());
/**
 * The messages that opened an incident's conversation: its own announce, or a roll-up, startup summary or
 * digest that names it (spec 6: each problem then gets its own message on change or resolve).
 */
const openings = (id: string) =>
  messages().filter(
    (m) => m.action === "announce" && (m.incidentId === id || (m.covers as string[] | undefined)?.includes(id)),
  );
const resolves = (id: string) => messages().filter((m) => m.action === "resolve" && m.incidentId === id);
const incidents: string[] = [];
const takeovers: number[] = [];
try {
  for (let round = 1; round <= rounds; round++) {
    const names = Array.from({ length: perRound }, (_, i) => `app-${round}-${i + 1}`);
    for (const [i, name] of names.entries()) {
      const { deployment: d, replicaSet } = deployment("storm", name, 1, `ghcr.io/storm/${name}:1.0`, "abc12");
      const dep = sim.apply(d);
      const rs = sim.apply({ ...replicaSet, metadata: { ...replicaSet.metadata, ownerReferences: [ownerRef(dep)] } });
      sim.apply(runningPod(rs, "p0", `n${(i % 3) + 1}`, Date.now() - 3_600_000));
      incidents.push(`Deployment/storm/${name}`);
    }
    // The storm: crash loops one after another; the leader dies somewhere in the middle of it.
    const victim = leader()!;
    const heir = live.find((r) => r !== victim)!;
    const syncsBefore = await syncs(heir);
    const killAt = Math.floor(random() * perRound);
    for (const [i, name] of names.entries()) {
      if (i === killAt) victim.child.kill("SIGKILL");
      // Each app fails its own way: the same error in several workloads would be one shared-error incident.
      const word = WORDS[(incidents.length - names.length + i) % WORDS.length]!;
      crashPod(sim, "storm", `${name}-abc12-p0`, 5, Date.now(), `fatal: the ${word} backend refused the connection`);
      await new Promise((r) => setTimeout(r, Math.floor(random() * 400)));
    }
    const killed = Date.now();
    const before = await requests();
    await victim.exited();
    await waitUntil(() => leader() !== undefined && leader() !== victim, `a new leader (round ${round})`, 60_000);
    takeovers.push((Date.now() - killed) / 1000);
    await waitUntil(
      () => names.every((n) => openings(`Deployment/storm/${n}`).length > 0),
      `round ${round}'s announces`,
      60_000,
    ).catch(() => {});
    // Only the new leader talked to the API server since the kill: a warm standby needs no relist.
    const after = await requests();
    // A relist would be a new cache sync of the heir's watcher (its informers list again).
    relists.push((await syncs(heir)) - syncsBefore);
    if (process.argv.includes("--dump"))
      console.log(Object.entries(minus(after, before)).filter(([k, n]) => k.startsWith("LIST ") && n > 0));
    // The kubelet restarts the killed container: the same pod name, a fresh process, now the standby.
    const standby = await startReplica(installation, victim.name);
    live.splice(live.indexOf(victim), 1, standby);
    // Warm before the next kill: its own first lists are not the next takeover's.
    const warm = () =>
      fetch(`${standby.health}/health`).then(
        async (r) => (await r.json()).components?.caches?.state === "ok",
        () => false,
      );
    await waitUntil(warm, `the new standby's caches (round ${round})`, 60_000);
    console.log(`round ${round}: leader ${victim.name} killed; takeover ${takeovers.at(-1)!.toFixed(1)} s`);
  }
  // Every crash loop is fixed: each incident must resolve once, in its conversation.
  for (const id of incidents) {
    const name = id.split("/")[2]!;
    const pod = `${name}-abc12-p0`;
    const current = sim.store.get(sim.typeOf("", "v1", "pods"), "storm", pod);
    sim.patchStatus("v1", "Pod", "storm", pod, {
      phase: "Running",
      conditions: [{ type: "Ready", status: "True", lastTransitionTime: new Date().toISOString() }],
      containerStatuses: [
        {
          name: current.spec.containers[0].name,
          image: current.spec.containers[0].image,
          imageID: "",
          ready: true,
          started: true,
          restartCount: 6,
          state: { running: { startedAt: new Date().toISOString() } },
        },
      ],
    });
  }
  await waitUntil(() => incidents.every((id) => resolves(id).length > 0), "every resolve", 120_000).catch(() => {});
} finally {
  await stopAll();
}

// What arrived, per incident.
let lostAnnounces = 0;
let lostResolves = 0;
let redelivered = 0;
let doubled = 0;
for (const id of incidents) {
  const opened = openings(id);
  const closed = resolves(id);
  if (opened.length === 0) lostAnnounces += 1;
  if (closed.length === 0) lostResolves += 1;
  const ids = new Set(opened.map((m) => m.messageId));
  // A second opening under another message id would be a second conversation for one problem.
  doubled += Math.max(0, ids.size - 1);
}
// Messages received more than once under the same id (one in flight when its sender died, sent again).
const seen = new Map<string, number>();
for (const m of messages()) if (m.delivery !== "notice") seen.set(m.messageId, (seen.get(m.messageId) ?? 0) + 1);
for (const n of seen.values()) redelivered += n - 1;
if (process.argv.includes("--dump"))
  for (const m of messages()) console.log(JSON.stringify([m.action, m.incidentId, m.delivery, m.covers, m.title]));
const sorted = [...takeovers].sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
const table = [
  "| leader kills | incidents | lost announces | lost resolves | redelivered (same message id) | doubled conversations | takeover median / max (s) |",
  "|---|---|---|---|---|---|---|",
  `| ${rounds} | ${incidents.length} | ${lostAnnounces} | ${lostResolves} | ${redelivered} | ${doubled} | ${median.toFixed(1)} / ${(sorted.at(-1) ?? 0).toFixed(1)} |`,
].join("\n");
/** Object lists (not the non-resource reads the simulator also labels LIST: /metrics, /readyz). */
const objectLists = (counts: Record<string, number>) =>
  Object.entries(counts)
    .filter(([k]) => /^LIST [a-z]/.test(k))
    .reduce((n, [, v]) => n + v, 0);
// Differences of two minutes: a count one lower in the second minute is noise, shown as 0.
const perMinute = (counts: Record<string, number>) =>
  [
    `object LIST ${Math.max(0, objectLists(counts))}`,
    ...["GET", "PUT", "POST"].map((v) => `${v} ${Math.max(0, counts[v] ?? 0)}`),
  ].join(", ");
const load = [
  "| API requests per minute (watches are long-lived: counted when they end) | object LIST, GET, PUT, POST |",
  "|---|---|",
  `| a leader alone (steady) | ${perMinute(leaderMinute)} |`,
  `| what a warm standby adds in its first minute (its initial lists and access reviews, then Lease reads) | ${perMinute(standbyMinute)} |`,
  `| cache syncs of the new leader between a kill and its announces, per takeover (a relist would be 1 or more) | ${relists.join(", ")} |`,
].join("\n");
console.log(`\n${table}\n\n${load}`);
if (process.argv.includes("--write")) {
  const path = join(import.meta.dirname, "..", "docs", "reliability.md");
  writeBetweenMarkers(
    path,
    "<!-- chaos table: bun scripts/chaos.ts --write -->",
    "<!-- end of chaos table -->",
    `${table}\n\n${load}`,
  );
  console.log(`wrote ${path}`);
}
process.exit(lostAnnounces + lostResolves + doubled > 0 ? 1 : 0);
