import type { Finding } from "../model/finding.ts";
import type { KubeConnection } from "../kube/connection.ts";
import { lastErrorLines, readContainerLog } from "../kube/pod-logs.ts";
import { redact } from "../redact/redact.ts";
import type { Metrics } from "../metrics.ts";
import type { Clock } from "../runtime/clock.ts";

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
  /** The last error lines for a finding, when read. */
  lines(finding: Finding): readonly string[] | undefined;
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

/**
 * Reads `pods/log` (previous instance for crashes) for findings of crashed containers, at most 4 at a time,
 * keyed by finding and restart count so a new crash is read again. `onReady` runs after each read so a pass
 * can use it; a read that fails or takes longer than LOG_WAIT_MS leaves the finding without log lines.
 */
export function createLogEvidence(options: {
  connection: KubeConnection;
  clock: Clock;
  metrics: Metrics;
  onReady: () => void;
}): LogEvidence {
  const read = new Map<string, readonly string[] | null>();
  const started = new Map<string, number>();
  const queue: { version: string; finding: Finding }[] = [];
  let running = 0;

  const version = (f: Finding) => `${f.key}#${f.evidence.find((e) => e.label === "restarts")?.value ?? ""}`;
  const pump = () => {
    while (running < 4 && queue.length > 0) {
      const { version: v, finding } = queue.shift()!;
      running++;
      const o = finding.object;
      readContainerLog(options.connection, {
        namespace: o.namespace ?? "",
        pod: o.name,
        container: (finding.container ?? "").replace(/ \(init\)$/, ""),
        previous: WITH_LOGS[finding.reason] ?? true,
      })
        .then((text) => {
          const late = options.clock.now() - (started.get(v) ?? 0) > LOG_WAIT_MS;
          options.metrics.investigations.inc({ result: text === undefined ? "skipped" : late ? "late" : "done" });
          // The whole tail is redacted before lines are picked: a private key spans many lines (spec 6.8).
          read.set(v, text === undefined ? null : lastErrorLines(redact(text).text));
        })
        .finally(() => {
          running--;
          options.onReady();
          pump();
        });
    }
  };

  return {
    lines(f) {
      const found = read.get(version(f));
      if (found) return found;
      // An older read of the same container is better than none while the newest is fetched.
      for (const [v, lines] of read) if (lines && v.startsWith(`${f.key}#`)) return lines;
      return undefined;
    },
    pending(f) {
      const v = version(f);
      if (read.has(v) || !(f.reason in WITH_LOGS) || f.object.kind !== "Pod") return false;
      // Not asked for yet: the pass defers it, and the loop requests it right after the pass.
      const at = started.get(v);
      return at === undefined || options.clock.now() - at < LOG_WAIT_MS;
    },
    busy: () => running > 0 || queue.length > 0,
    request(findings) {
      for (const f of findings) {
        if (!(f.reason in WITH_LOGS) || f.object.kind !== "Pod") continue;
        const v = version(f);
        if (started.has(v)) continue;
        started.set(v, options.clock.now());
        queue.push({ version: v, finding: f });
        // A read that has not answered by then times out: the announcement goes out without its log.
        options.clock.setTimer(() => {
          if (!read.has(v)) {
            options.metrics.investigations.inc({ result: "timeout" });
            read.set(v, null);
          }
          options.onReady();
        }, LOG_WAIT_MS);
      }
      if (started.size > 20_000) {
        for (const key of [...started.keys()].slice(0, 10_000)) {
          started.delete(key);
          read.delete(key);
        }
      }
      pump();
    },
  };
}
