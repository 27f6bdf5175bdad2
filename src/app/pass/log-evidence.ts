import type { LogOutcome } from "../../detect/evidence.ts";
import type { Finding } from "../../model/finding.ts";
import type { KubeConnection } from "../../kube/connection.ts";
import { lastErrorLines, readContainerLog } from "../../kube/pod-logs.ts";
import { redact } from "../../redact/redact.ts";
import type { Metrics } from "../../metrics.ts";
import type { Clock } from "../../runtime/clock.ts";

/** Reasons whose evidence includes the crashed container's last log lines, and whether to read the previous instance. */
const WITH_LOGS: Readonly<Record<string, boolean>> = {
  CrashLoopBackOff: true,
  OOMKilled: true,
  InitContainerFailed: true,
  RunContainerError: true,
  ContainerExitedNonZero: false,
};

/** How long an announcement waits for a log tail before it goes out without it. */
export const LOG_WAIT_MS = 5_000;

/** Log evidence for findings: what the pass asks and what it gets. */
export interface LogEvidence {
  /** What was read for a finding: its container's last error lines, or why they could not be read; undefined before. */
  outcome(finding: Finding): LogOutcome | undefined;
  /**
   * True while a new finding waits for its log: not requested yet, or requested less than LOG_WAIT_MS ago and
   * not read. A question only: reads start with `request`, which the pass loop calls after each pass.
   */
  pending(finding: Finding): boolean;
  /** Starts reading logs for the findings that need them and do not have them yet. */
  request(findings: readonly Finding[]): void;
  /** True while a read is queued or running. */
  busy(): boolean;
}

/** Reads queued or running at most; a flood's other findings go out without their log (`shed`). */
export const MAX_OUTSTANDING_READS = 1_000;
/** A sibling's log stands for a pod's own for this long, ms: pods of one workload crash with the same error. */
const SIBLING_MS = 60_000;

/**
 * Reads `pods/log` (previous instance for crashes) for findings of crashed containers, at most 4 at a time,
 * keyed by finding and restart count so a new crash is read again. `onReady` runs after each read so a pass
 * can use it; a read that fails or takes longer than LOG_WAIT_MS leaves the finding without log lines.
 * A flood costs what one workload costs (issue 30): the pods of one workload (one ReplicaSet, StatefulSet or
 * Job: the pod name without its last `-` part) share one read of the same container, kept once and shown for
 * each of them; at most MAX_OUTSTANDING_READS wait, the rest are counted `shed` and told without a log.
 */
export function createLogEvidence(options: {
  connection: KubeConnection;
  clock: Clock;
  metrics: Metrics;
  onReady: () => void;
}): LogEvidence {
  const read = new Map<string, LogOutcome>();
  /** The latest lines read of each finding key, whatever its restart count: a lookup, not a scan of `read`. */
  const latest = new Map<string, LogOutcome & { lines: readonly string[] }>();
  const started = new Map<string, number>();
  /** The latest read of each workload family: its version and when it started. */
  const families = new Map<string, { version: string; at: number }>();
  const queue: { version: string; finding: Finding }[] = [];
  let running = 0;

  // A new read for each crash (restart count) and for the instance it is read from.
  const version = (f: Finding) =>
    `${f.key}#${f.evidence.find((e) => e.label === "restarts")?.value ?? ""}#${f.crashedInstance ?? ""}`;
  const family = (f: Finding) => {
    const o = f.object;
    const owner = o.name.includes("-") ? o.name.slice(0, o.name.lastIndexOf("-")) : o.name;
    return `${f.reason}/${o.namespace ?? ""}/${owner}/${f.container ?? ""}`;
  };
  /** A sibling's read that stands for `f`'s own: same family, another pod, started within SIBLING_MS. */
  const sibling = (f: Finding) => {
    const latest = families.get(family(f));
    if (!latest || latest.version.startsWith(`${f.key}#`)) return undefined;
    return options.clock.now() - latest.at < SIBLING_MS ? latest : undefined;
  };
  const pump = () => {
    while (running < 4 && queue.length > 0) {
      const { version: v, finding } = queue.shift()!;
      running++;
      const o = finding.object;
      readContainerLog(options.connection, {
        namespace: o.namespace ?? "",
        pod: o.name,
        container: (finding.container ?? "").replace(/ \(init\)$/, ""),
        // The instance whose output explains it: a just-ended container's is the current one (a kubelet keeps
        // one dead instance per container, so the one before is often gone), else the previous one.
        previous: finding.crashedInstance
          ? finding.crashedInstance === "previous"
          : (WITH_LOGS[finding.reason] ?? true),
      })
        .then((got) => {
          const late = options.clock.now() - (started.get(v) ?? 0) > LOG_WAIT_MS;
          options.metrics.investigations.inc({ result: "unavailable" in got ? "skipped" : late ? "late" : "done" });
          if ("unavailable" in got) {
            // A read that timed out meanwhile keeps saying so; a later answer of why not is no better.
            if (!read.has(v)) read.set(v, { unavailable: got.unavailable });
            return;
          }
          // The whole tail is redacted before lines are picked: a private key spans many lines (spec 6.8).
          const lines = { lines: lastErrorLines(redact(got.text).text) };
          read.set(v, lines);
          latest.set(finding.key, lines);
        })
        .finally(() => {
          running--;
          options.onReady();
          pump();
        });
    }
  };

  return {
    outcome(f) {
      const found = read.get(version(f));
      if (found && "lines" in found) return found;
      const near = sibling(f);
      const shared = near && read.get(near.version);
      if (shared && "lines" in shared) return shared;
      // An older read of the same container is better than none while the newest is fetched, or than why not.
      return latest.get(f.key) ?? found ?? shared;
    },
    pending(f) {
      const v = version(f);
      if (read.has(v) || !(f.reason in WITH_LOGS) || f.object.kind !== "Pod") return false;
      const near = sibling(f);
      if (near && !started.has(v)) return !read.has(near.version) && options.clock.now() - near.at < LOG_WAIT_MS;
      // Not asked for yet: the pass defers it, and the loop requests it right after the pass.
      const at = started.get(v);
      return at === undefined || options.clock.now() - at < LOG_WAIT_MS;
    },
    busy: () => running > 0 || queue.length > 0,
    request(findings) {
      const now = options.clock.now();
      const asked: string[] = [];
      for (const f of findings) {
        if (!(f.reason in WITH_LOGS) || f.object.kind !== "Pod") continue;
        const v = version(f);
        if (started.has(v) || sibling(f)) continue;
        started.set(v, now);
        if (queue.length + running >= MAX_OUTSTANDING_READS) {
          options.metrics.investigations.inc({ result: "shed" });
          read.set(v, { unavailable: "not read: too many crashes to read at once" });
          continue;
        }
        families.set(family(f), { version: v, at: now });
        queue.push({ version: v, finding: f });
        asked.push(v);
      }
      if (asked.length > 0)
        // Reads that have not answered by then time out: the announcements go out without their log.
        options.clock.setTimer(() => {
          for (const v of asked)
            if (!read.has(v)) {
              options.metrics.investigations.inc({ result: "timeout" });
              read.set(v, { unavailable: `not read: no answer within ${LOG_WAIT_MS / 1000} s` });
            }
          options.onReady();
        }, LOG_WAIT_MS);
      if (started.size > 20_000) {
        for (const key of [...started.keys()].slice(0, 10_000)) {
          started.delete(key);
          read.delete(key);
        }
        for (const [key, last] of families) if (!started.has(last.version)) families.delete(key);
        if (latest.size > 20_000) latest.clear();
      }
      pump();
    },
  };
}
