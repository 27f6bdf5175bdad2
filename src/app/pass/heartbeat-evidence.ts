import type { HeartbeatOutcome } from "../../detect/evidence.ts";
import type { KubeConnection } from "../../kube/connection.ts";
import { readNodeHeartbeat } from "../../kube/node-lease.ts";
import type { Finding } from "../../model/finding.ts";
import type { Clock } from "../../runtime/clock.ts";
import { LOG_WAIT_MS } from "./log-evidence.ts";

/** Node reasons whose evidence names the kubelet's last heartbeat, read from the node's Lease. */
const WITH_HEARTBEAT = new Set(["NodeLost", "NodeNotReady"]);

/** The heartbeat evidence of down nodes: what the pass asks and what it gets. */
export interface HeartbeatEvidence {
  /** What was read of the finding's node's Lease; undefined before (or for a finding it does not concern). */
  outcome(finding: Finding): HeartbeatOutcome | undefined;
  /** True while a new finding of a down node waits for its Lease, for at most LOG_WAIT_MS. */
  pending(finding: Finding): boolean;
  /** Starts reading the Leases of the findings that need them and do not have them yet. */
  request(findings: readonly Finding[]): void;
  /** True while a read runs. */
  busy(): boolean;
}

/**
 * Reads the Lease of each node that went down (issue 50: a node's heartbeat is its Lease), once per episode
 * (the finding's node and `since`): a lost node's Lease stands still, so one read says when its kubelet was last
 * heard from. A read that fails says why; one that has not answered within LOG_WAIT_MS says that, and the
 * announcement goes out without waiting longer. `onReady` runs after each read so a pass can use it.
 */
export function createHeartbeatEvidence(options: {
  connection: KubeConnection;
  clock: Clock;
  onReady: () => void;
}): HeartbeatEvidence {
  const read = new Map<string, HeartbeatOutcome>();
  const started = new Map<string, number>();
  let running = 0;
  const key = (f: Finding) => `${f.object.name}@${f.since}`;
  const concerns = (f: Finding) => f.object.kind === "Node" && WITH_HEARTBEAT.has(f.reason);
  return {
    outcome: (f) => (concerns(f) ? read.get(key(f)) : undefined),
    pending(f) {
      if (!concerns(f) || read.has(key(f))) return false;
      const at = started.get(key(f));
      return at === undefined || options.clock.now() - at < LOG_WAIT_MS;
    },
    busy: () => running > 0,
    request(findings) {
      const now = options.clock.now();
      for (const f of findings) {
        if (!concerns(f)) continue;
        const k = key(f);
        if (started.has(k)) continue;
        started.set(k, now);
        running++;
        void readNodeHeartbeat(options.connection, f.object.name, AbortSignal.timeout(LOG_WAIT_MS))
          .then((got) => {
            read.set(k, got);
          })
          .finally(() => {
            running--;
            options.onReady();
          });
        options.clock.setTimer(() => {
          if (!read.has(k)) read.set(k, { unavailable: `its Lease was not read within ${LOG_WAIT_MS / 1000} s` });
          options.onReady();
        }, LOG_WAIT_MS);
      }
      // Episodes of long ago: kept bounded.
      if (started.size > 10_000)
        for (const k of [...started.keys()].slice(0, 5_000)) {
          started.delete(k);
          read.delete(k);
        }
    },
  };
}
