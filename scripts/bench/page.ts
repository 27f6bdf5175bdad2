/**
 * Benchmark `page` (issue 44, docs/performance.md "The incidents page"): what the incidents page costs at
 * 1,000 open incidents and 10,000 resolved in the last 24 hours. The page's memory (src/page/history.ts: each
 * incident with its three messages, as remembered when they went out) is measured as the heap it adds after a
 * full collection; the render of the list page (open incidents, the timeline drawn for a desktop and a phone,
 * the resolved list) and of one incident's page are timed over ROUNDS renders each, and the median reported.
 * With a state file (Pro, issue 54) the history is kept in the state store: the time to write all of it, the
 * file's size, and the time a restarted mon takes to put it back are measured once. Writes
 * scripts/bench/results/page.json and the table in docs/performance.md. Run: bun scripts/bench/page.ts
 * (part of npm run bench)
 */
import type { Message } from "../../src/model/message.ts";
import { TellHistory } from "../../src/page/history.ts";
import { renderIncidentPage, renderIncidentsPage } from "../../src/page/html.ts";
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPageKeeper } from "../../src/app/delivery/page-keeper.ts";
import { createSilentLogger } from "../../src/runtime/logger.ts";
import { openStateStore, STATE_FILE } from "../../src/state/store.ts";
import { publish } from "./report.ts";

const OPEN = Number(process.env.BENCH_PAGE_OPEN ?? 1_000);
const RESOLVED = Number(process.env.BENCH_PAGE_RESOLVED ?? 10_000);
const ROUNDS = Number(process.env.BENCH_PAGE_ROUNDS ?? 15);
const NOW = Date.UTC(2026, 5, 2, 9);

function message(i: number, action: Message["action"]): Message {
  const namespace = `team-${i % 40}`;
  const name = `service-${i}`;
  return {
    id: `m-${i}-${action}`,
    incidentId: `Deployment/${namespace}/${name}`,
    action,
    mark: "notify",
    emoji: "🟠",
    tier: i % 7 === 0 ? "critical" : "medium",
    mode: "notify",
    title: `deployment ${namespace}/${name}: CrashLoopBackOff in 3 pods`,
    text: `🟠 deployment ${namespace}/${name}: CrashLoopBackOff in 3 pods\nChanged: a write rolled out deployment ${namespace}/${name}: image web: registry.example/web:1.0 → 1.1.\nImpact: service ${namespace}/${name} (internal): 0 of 3 backends ready.\n${"• container web of pod is crash-looping: exit 1 (Error), 5 restarts; last output: panic: connection refused\n".repeat(3)}`,
    markdown: "",
    root: { kind: "Deployment", namespace, name },
    reason: "CrashLoopBackOff",
    findings: Array.from({ length: 5 }, (_, k) => ({
      reason: "CrashLoopBackOff",
      object: { kind: "Pod", namespace, name: `${name}-abc12-${k}` },
      tier: "medium" as const,
      summary: "crash-looping",
      evidence: [],
    })),
    news: [],
    dedupKey: `d-${i}`,
    at: NOW,
  } as Message;
}

Bun.gc(true);
const before = process.memoryUsage().heapUsed;
const history = new TellHistory();
for (let i = 0; i < OPEN + RESOLVED; i++) {
  const at = NOW - 23 * 3_600_000 + Math.floor((i / (OPEN + RESOLVED)) * 22 * 3_600_000);
  history.told(message(i, "announce"), ["slack"], at);
  history.told(message(i, "update"), ["slack"], at + 60_000);
  if (i >= OPEN) history.told(message(i, "resolve"), ["slack"], at + 600_000);
}
Bun.gc(true);
const heapMiB = (process.memoryUsage().heapUsed - before) / 2 ** 20;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const time = (render: () => string) => {
  let bytes = 0;
  const ms: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    bytes = render().length;
    ms.push(performance.now() - t0);
  }
  return { ms: Math.round(median(ms) * 10) / 10, bytes };
};
const list = time(() =>
  renderIncidentsPage({ cluster: "bench", now: NOW, stories: history.list(NOW), blind: history.blindPeriods() }),
);
const searched = time(() =>
  renderIncidentsPage({
    cluster: "bench",
    now: NOW,
    stories: history.list(NOW),
    blind: [],
    query: { namespace: "team-3", q: "refused" },
  }),
);
const one = time(() =>
  renderIncidentPage(history.get("Deployment/team-1/service-1")!, {}, { cluster: "bench", now: NOW }),
);
// Kept in a state file (Pro): everything written once, then put back by a new process's keeper.
const dir = mkdtempSync(join(tmpdir(), "mon-bench-page-"));
const store = await openStateStore({ dataDir: dir });
const keeper = createPageKeeper({ store: () => store, history, logger: createSilentLogger() });
let t0 = performance.now();
keeper.changed();
await keeper.flushed();
const writeS = Math.round(performance.now() - t0) / 1000;
const fileMiB = statSync(join(dir, STATE_FILE)).size / 2 ** 20;
const restored = new TellHistory();
t0 = performance.now();
const back = await createPageKeeper({ store: () => store, history: restored, logger: createSilentLogger() }).restore(
  NOW,
);
const restoreS = Math.round(performance.now() - t0) / 1000;
await store.close();
if (back !== history.list(NOW).length) throw new Error(`restored ${back} of ${history.list(NOW).length} incidents`);
const rows = [
  ["the list: open, the timeline (desktop and phone), the 200 newest resolved", list],
  ["the list, searched (a namespace and a word)", searched],
  ["one incident's page", one],
] as const;
const table = [
  `${OPEN} open and ${RESOLVED} resolved incidents remembered (3 messages each): ${heapMiB.toFixed(1)} MiB of heap.`,
  "",
  "| page | median render (ms) | size (KiB) |",
  "|---|---:|---:|",
  ...rows.map(([what, r]) => `| ${what} | ${r.ms} | ${Math.round(r.bytes / 1024)} |`),
  "",
  `Kept in a state file (Pro): ${fileMiB.toFixed(1)} MiB; all of it written in ${writeS} s (as it changes, one incident's record at a time), put back by a restarted mon in ${restoreS} s.`,
].join("\n");
publish(
  "page",
  {
    ...{ runtime: `bun ${Bun.version}`, open: OPEN, resolved: RESOLVED, rounds: ROUNDS, heapMiB, list, searched, one },
    ...{ fileMiB, writeS, restoreS },
  },
  table,
);
