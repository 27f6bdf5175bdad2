import { withHeartbeat, withLog } from "../../detect/evidence.ts";
import type { KubeConnection } from "../../kube/connection.ts";
import type { Metrics } from "../../metrics.ts";
import type { Finding } from "../../model/finding.ts";
import type { Clock } from "../../runtime/clock.ts";
import { createHeartbeatEvidence } from "./heartbeat-evidence.ts";
import { createLogEvidence } from "./log-evidence.ts";
import type { PassEvidence } from "./result.ts";

/** What the pass reads for a new announcement before it goes out, and how the pass loop asks for it. */
export interface EvidenceReads extends PassEvidence {
  /** Starts the reads the findings that wait need (the pass loop calls it after each pass). */
  request(findings: readonly Finding[]): void;
  /** True while a read is queued or running. */
  busy(): boolean;
}

/**
 * The reads an announcement waits for, at most a few seconds: a crashed container's last log lines
 * (log-evidence.ts) and a down node's last heartbeat from its Lease (heartbeat-evidence.ts, issue 50). Each
 * finding gets what concerns it, or what says why it could not be read.
 */
export function createEvidenceReads(options: {
  connection: KubeConnection;
  clock: Clock;
  metrics: Metrics;
  onReady: () => void;
}): EvidenceReads {
  const logs = createLogEvidence(options);
  const heartbeats = createHeartbeatEvidence(options);
  return {
    attach: (f) => withHeartbeat(withLog(f, logs.outcome(f)), heartbeats.outcome(f)),
    pending: (f) => logs.pending(f) || heartbeats.pending(f),
    request(findings) {
      logs.request(findings);
      heartbeats.request(findings);
    },
    busy: () => logs.busy() || heartbeats.busy(),
  };
}
