import type { ObjectRef } from "./object-ref.ts";

/**
 * One active probe target (spec 2.3, Pro): a configured `http`, `tcp` or `dns` target, a ClusterIP Service
 * (`autoServices`) or an external dependency named in Pod environment values (`autoDependencies`).
 * `address` is the URL (http), `host:port` (tcp) or host name (dns).
 */
export interface ProbeTarget {
  readonly kind: "http" | "tcp" | "dns";
  /** Unique per round: the configured name, `service/<ns>/<name>` or `dependency/<host:port>`. */
  readonly name: string;
  readonly origin: "configured" | "service" | "dependency";
  readonly address: string;
  /** http only: the status expected (default any 2xx or 3xx). */
  readonly expectedStatus?: number;
  /** http only: milliseconds above which the answer is slow (warning) or far too slow (critical). */
  readonly latencyWarningMs?: number;
  readonly latencyCriticalMs?: number;
  /** autoServices: the Service probed. */
  readonly service?: ObjectRef;
  /** autoDependencies: the pods whose environment names this dependency. */
  readonly callers?: readonly ObjectRef[];
}

/** What one check of a target found. `latencyMs` is measured on the injected clock; `error` says why it failed. */
export interface ProbeCheck {
  readonly ok: boolean;
  readonly latencyMs: number;
  /** http: the status received. */
  readonly status?: number;
  readonly error?: string;
}

/**
 * A target whose probe is failing or slow (spec 2.3), as the pass sees it: `failures` consecutive failed
 * rounds (reported once it reaches `failureThreshold`), `since` (epoch ms) the first of them; a slow answer
 * is reported at once with `slow`. A probe resolves on its first success: it is then no longer listed.
 */
export interface ProbeStatus {
  readonly target: ProbeTarget;
  readonly failures: number;
  readonly since: number;
  readonly last: ProbeCheck;
  readonly slow?: "warning" | "critical";
}
