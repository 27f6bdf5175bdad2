import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { SERVICE_ACCOUNT_DIR } from "../../src/kube/in-cluster.ts";
import { publish, startMon } from "./report.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deployment, readyNode, runningPod } from "../../src/sim/scenarios/builders.ts";
import { startSimulator } from "../../src/sim/simulator.ts";

const work = mkdtempSync(join(tmpdir(), "mon-idle-"));
const root = join(import.meta.dirname, "..", "..");
const sim = await startSimulator();
const now = Date.now();
for (let n = 0; n < 3; n++) sim.apply(readyNode(`node-${n}`, now - 86_400_000));
sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } });
// In a pod, mon takes the state lock (a Lease) in its own namespace first.
sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "mon" } });
for (let d = 0; d < 3; d++) {
  const { deployment: dep, replicaSet } = deployment("shop", `app-${d}`, 10, `registry.example/app-${d}:1.0`, `h${d}`);
  sim.apply(dep);
  const rs = sim.apply(replicaSet);
  for (let i = 0; i < 10; i++) sim.apply(runningPod(rs, `p${i}`, `node-${i % 3}`, now - 3_600_000));
}
/**
 * A process's resident set, MiB: whole, its own memory (anonymous: the heap, the JIT's code, the runtime's
 * allocations) and the pages of files it maps (the binary's code and data, read from disk and given back under
 * pressure), from /proc/PID/smaps_rollup.
 */
function residentOf(pid: number): { rssMiB: number; anonMiB: number; fileMiB: number } {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(rollup)?.[1] ?? 0);
  const mib = (k: number) => Math.round(k / 1024);
  return { rssMiB: mib(kib("Rss")), anonMiB: mib(kib("Anonymous")), fileMiB: mib(kib("Rss") - kib("Anonymous")) };
}

/**
 * A program compiled by the same Bun the same way (`bun build --compile`), 5 s after start: `imports` (module
 * specifiers, resolved from the repository) imported and kept, then nothing but a timer. Without imports it is
 * the floor: what mon holds above it is mon's; with one part, what that part costs on its own. `body` is run
 * once after the imports (a part of the runtime in use: a TLS client, an HTTP server).
 */
async function programRss(
  name: string,
  imports: readonly string[] = [],
  body = "",
): Promise<ReturnType<typeof residentOf>> {
  // Inside the repository, so its node_modules resolve.
  const dir = join(root, "dist", "idle-parts");
  mkdirSync(dir, { recursive: true });
  const source = [
    ...imports.map((m, i) => `import * as m${i} from ${JSON.stringify(m)};`),
    `(globalThis as Record<string, unknown>).kept = [${imports.map((_, i) => `m${i}`).join(", ")}];`,
    body,
    "setInterval(() => {}, 1000);",
  ].join("\n");
  writeFileSync(join(dir, `${name}.ts`), `${source}\n`);
  const built = spawnSync(process.execPath, [
    "build",
    "--compile",
    join(dir, `${name}.ts`),
    "--outfile",
    join(work, name),
  ]);
  if (built.status !== 0) throw new Error(`bun build --compile failed: ${built.stderr}`);
  const child = spawn(join(work, name), { stdio: "ignore" });
  await new Promise((r) => setTimeout(r, 5_000));
  const resident = residentOf(child.pid as number);
  child.kill("SIGKILL");
  return resident;
}

/** What each bundled part mon runs with costs on its own (issue 55): the library, and what mon uses it for. */
const PARTS: readonly (readonly [string, string, string])[] = [
  ["h3", "h3", "the health, metrics and incidents server"],
  ["prom-client", "prom-client", "metrics"],
  ["valibot", "valibot", "the configuration's schema"],
  ["yaml", "yaml", "the configuration file"],
  ["unstorage", "unstorage", "the state store"],
  ["citty", "citty", "the command line"],
  ["consola", "consola", "logs and prompts"],
  ["ofetch", "ofetch", "HTTP to the providers"],
  ["secretlint", "@secretlint/core", "secrets scrubbed from what is sent (with its recommended rules)"],
  ["prometheus text", "parse-prometheus-text-format", "the API server's and CoreDNS's /metrics"],
  ["aws4fetch", "aws4fetch", "signed requests to AWS providers"],
  ["db0", "db0", "the state store's SQLite"],
  ["protobuf", "../../src/kube/protobuf/plans.ts", "mon's protobuf decoder and the v1.32 schema (issue 55)"],
  ["client-node", "@kubernetes/client-node", "reading a kubeconfig (not loaded in a cluster)"],
  ["nodemailer", "nodemailer", "SMTP (loaded when mail is first sent)"],
];

/** Resident set of `mon run` watching the small cluster, 20 s after ready, MiB (see residentOf). */
async function idleRss(inCluster: boolean): Promise<ReturnType<typeof residentOf> & { compiled: boolean }> {
  const { mon, compiled } = await startMon({
    work,
    kubeconfig: sim.kubeconfig(),
    clusterName: "idle",
    alert: { webhook: { url: "http://127.0.0.1:9/unused" } },
    ...(inCluster ? { inCluster: { server: sim.server.url, token: sim.token, ca: sim.pki.caCert } } : {}),
  });
  await new Promise((r) => setTimeout(r, 20_000));
  const resident = residentOf(mon.pid as number);
  mon.kill("SIGTERM");
  return { ...resident, compiled };
}

const kubeconfig = await idleRss(false);
// In a pod (its ServiceAccount, no kubeconfig) needs the token where a pod has it: root only.
// The files are removed afterwards unless they were there before: a machine that is no pod must not look like one.
const mounted = existsSync(SERVICE_ACCOUNT_DIR);
const inCluster = process.getuid?.() === 0 ? await idleRss(true) : undefined;
if (!mounted) rmSync(SERVICE_ACCOUNT_DIR, { recursive: true, force: true });
const empty = await programRss("empty");
const parts = [];
for (const [name, module, use] of PARTS) parts.push({ name, use, ...(await programRss(name, [module])) });
// The runtime's parts mon's work runs through, in use as mon uses them (no library imported).
const RUNTIME: readonly (readonly [string, string, string])[] = [
  [
    "TLS client",
    "an HTTPS request to the API server every second (the runtime's fetch and TLS)",
    `setInterval(() => fetch(${JSON.stringify(`${sim.server.url}/version`)}, { tls: { rejectUnauthorized: false } } as RequestInit).then((r) => r.text(), () => ""), 1000);`,
  ],
  [
    "HTTP server",
    "a server answering itself every second (the health and metrics endpoints)",
    'const server = Bun.serve({ port: 0, fetch: () => new Response("ok") }); setInterval(() => fetch(`http://127.0.0.1:${server.port}/`).then((r) => r.text()), 1000);',
  ],
  [
    "Intl",
    "dates formatted in a time zone every second (messages, the incidents page)",
    'setInterval(() => new Date().toLocaleString("en-GB", { timeZone: "Europe/Berlin", dateStyle: "medium", timeStyle: "long" }), 1000);',
  ],
];
for (const [name, use, body] of RUNTIME) parts.push({ name, use, ...(await programRss(name, [], body)) });
await sim.stop();
const result = {
  runtime: `bun ${Bun.version}`,
  compiled: kubeconfig.compiled,
  pods: 30,
  nodes: 3,
  idleRssMiB: kubeconfig.rssMiB,
  idle: kubeconfig,
  ...(inCluster ? { idleInClusterRssMiB: inCluster.rssMiB, idleInCluster: inCluster } : {}),
  emptyProgram: empty,
  parts,
};
const line = [
  `Idle: \`mon run\` (${kubeconfig.compiled ? "the compiled binary" : "from source"}) watching 3 nodes and 30 pods, 20 s after ready: ${inCluster ? `${inCluster.rssMiB} MiB resident in a cluster (its ServiceAccount, no kubeconfig library loaded), ` : ""}${kubeconfig.rssMiB} MiB with a kubeconfig (@kubernetes/client-node loaded to read it).`,
  "",
  "| process | resident (MiB) | its own memory (MiB) | pages mapped from files: the binary, libc (MiB) |",
  "|---|---:|---:|---:|",
  ...(inCluster ? [`| mon in a cluster | ${inCluster.rssMiB} | ${inCluster.anonMiB} | ${inCluster.fileMiB} |`] : []),
  `| mon with a kubeconfig | ${kubeconfig.rssMiB} | ${kubeconfig.anonMiB} | ${kubeconfig.fileMiB} |`,
  `| an empty program compiled by the same Bun | ${empty.rssMiB} | ${empty.anonMiB} | ${empty.fileMiB} |`,
  "",
  "What each part costs on its own: a program compiled the same way that imports only it, 5 s after start.",
  "",
  "| part | what mon uses it for | resident (MiB) | above an empty program (MiB) |",
  "|---|---|---:|---:|",
  ...parts.map((p) => `| ${p.name} | ${p.use} | ${p.rssMiB} | ${p.rssMiB - empty.rssMiB} |`),
].join("\n");
publish("idle", result, line);
process.exit(0);
