import type { KubeObject } from "../model/inventory.ts";
import type { Cancel, Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import { checkAccess } from "./access.ts";
import type { KubeConnection } from "./connection.ts";
import { discoverResources } from "./discovery.ts";
import { healthReasonOf, KubeError } from "./errors.ts";
import { createInformer, type Informer, type InformerState } from "./informer.ts";
import { KNOWN_KINDS, kindKey, type WatchTarget } from "./kinds.ts";
import { hashSecretValues, metadataOnly } from "./object-filter.ts";
import { protobufRead } from "./protobuf/plans.ts";
import type { ProtobufError } from "./protobuf/wire.ts";
import { planWatches, type CoverageEntry } from "./plan.ts";

/** State of one watched kind. */
export type KindState = "pending" | "synced" | "failing" | "sync_timeout";

/** What the watcher reports as it goes; every callback is optional. */
export interface WatcherHooks {
  /** A cached object changed. `inventoryKind` is the Inventory's kind name (`Pod`; `group/resource` for metadata-only kinds). */
  onEvent?(inventoryKind: string, type: "ADDED" | "MODIFIED" | "DELETED", object: KubeObject): void;
  /** An event handler threw; the watcher carried on. */
  onHandlerFailure?(kind: string, error: unknown): void;
  /** A kind changed state (for health), with a reason when failing. */
  onKindState?(target: WatchTarget, state: KindState, failure?: InformerState): void;
  /** A silent watch was checked and found behind the API server or held (kube/watch-check.ts), and was reopened. */
  onStall?(target: WatchTarget): void;
  /** Data arrives again on a kind whose watch stalled. */
  onProgress?(target: WatchTarget): void;
  /** An informer's loop ended unexpectedly; it starts again by itself. */
  onUnexpectedStop?(target: WatchTarget, why: string): void;
  /**
   * Discovery failed: of one API group (`group` set), or of the core API (`group` empty; retried with backoff).
   * `reason` is the health reason (kube/errors.ts healthReasonOf: a rejected credential, a refusal, throttling).
   */
  onDiscoveryFailure?(group: string, message: string, attempt: number, reason: string): void;
  /** Discovery, the plan and the access checks are done; informers are starting. */
  onWatching?(): void;
  /**
   * A metadata-only kind was dropped to bound memory (`object_cap_reached`, `budget_exceeded`): its informer
   * stopped; the caller forgets its objects (`inventoryKind`).
   */
  onDropped?(
    target: WatchTarget,
    inventoryKind: string,
    reason: "object_cap_reached" | "budget_exceeded",
    count: number,
  ): void;
}

/**
 * Bounds on what mon keeps of kinds it has no detector for (metadata-only: custom resources and the like), so
 * a cluster with a million custom resources cannot take mon down: at most OBJECT_CAP objects of one kind, at
 * most METADATA_BUDGET of all of them together. A kind that crosses either is no longer watched and is listed
 * in coverage as `object_cap_reached` or `budget_exceeded` (docs/health.md).
 */
export const OBJECT_CAP = 50_000;
export const METADATA_BUDGET = 200_000;

/** The cluster watcher (kube/): discovery, the watch plan, access checks and one informer per kind. */
export interface ClusterWatcher {
  /** Starts discovery, access checks and informers in the background; discovery is retried with backoff until it works. */
  start(): void;
  stop(): void;
  /** Kinds being watched. */
  targets(): readonly WatchTarget[];
  /** Kinds not watched and why (permission_denied, api_unavailable, disabled_by_config, sync_timeout). */
  coverage(): CoverageEntry[];
  /** Optional APIs the server does not serve. */
  optionalMissing(): readonly string[];
  /** True once every required kind is watched and synced. False while a required kind is missing or denied. */
  requiredSynced(): boolean;
  /** State of every watched kind, by `group/resource`. */
  states(): ReadonlyMap<string, KindState>;
}

/** Options of the cluster watcher. `syncTimeoutMs`: a kind not synced by then is `sync_timeout` in coverage. */
export interface WatcherOptions {
  readonly connection: KubeConnection;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly watchSecrets: boolean;
  readonly resyncMs: number;
  readonly syncTimeoutMs?: number;
  /** Real-time deadlines of a list and of a watch's response headers, ms (defaults 60 s, 30 s; tests of hung connections). */
  readonly requestDeadlinesMs?: { readonly list: number; readonly watchHeaders: number };
  readonly informerBackoffMs?: number;
  /**
   * Lists and watches built-in kinds in protobuf, decoded straight into their declared projection (issue 55), as
   * client-go's controllers do: asked for first, JSON accepted (custom resources, a server or proxy that answers
   * JSON). Default true; false reads everything as JSON.
   */
  readonly protobuf?: boolean;
  /** Overrides OBJECT_CAP and METADATA_BUDGET (tests). */
  readonly limits?: { readonly objectCap: number; readonly metadataBudget: number };
  readonly hooks: WatcherHooks;
}

/**
 * Creates the cluster watcher: every served kind watched (known kinds in full, others metadata-only), Secrets
 * hashed or not watched, access checked before each watch, coverage reported honestly (spec 1.1, 1.5, 5.5, 2.6).
 */
export function createClusterWatcher(options: WatcherOptions): ClusterWatcher {
  const { connection, clock, logger, hooks } = options;
  const informers: Informer[] = [];
  const states = new Map<string, KindState>();
  const limits = options.limits ?? { objectCap: OBJECT_CAP, metadataBudget: METADATA_BUDGET };
  // Objects of metadata-only kinds kept now, and the kinds dropped to bound them.
  let metadataTotal = 0;
  const dropReasons = new Map<string, "object_cap_reached" | "budget_exceeded">();
  const timers: Cancel[] = [];
  let watched: WatchTarget[] = [];
  let planned: CoverageEntry[] = [];
  let denied: CoverageEntry[] = [];
  let requiredUnavailable = false;
  let optionalMissing: string[] = [];

  let stopped = false;
  const stopper = new AbortController();
  const setState = (target: WatchTarget, state: KindState, failure?: InformerState) => {
    states.set(kindKey(target), state);
    hooks.onKindState?.(target, state, failure);
  };

  const discover = async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await discoverResources(connection, { signal: stopper.signal });
      } catch (error) {
        if (stopped) return undefined;
        const message = error instanceof KubeError ? error.message : String(error);
        if (attempt === 1 || attempt % 10 === 0)
          logger.warn(`discovery failed: ${message} (attempt ${attempt}; retrying with backoff)`);
        hooks.onDiscoveryFailure?.("", message, attempt, healthReasonOf(error, "discovery_failed"));
        const wait = Math.min(30_000, (options.informerBackoffMs ?? 1_000) * 2 ** Math.min(attempt - 1, 10));
        try {
          await clock.sleep(wait * (0.8 + Math.random() * 0.4), stopper.signal);
        } catch {
          return undefined;
        }
      }
    }
  };

  const run = async () => {
    const discovered = await discover();
    if (!discovered || stopped) return;
    for (const g of discovered.failedGroups) {
      logger.warn(`discovery of API group ${g.group} failed: ${g.message}`);
      hooks.onDiscoveryFailure?.(g.group, g.message, 1, "discovery_failed");
    }
    const plan = planWatches(discovered.resources, { watchSecrets: options.watchSecrets });
    planned = [...plan.coverage];
    optionalMissing = [...plan.optionalMissing];
    if (optionalMissing.length)
      logger.info(
        `optional APIs not installed: ${optionalMissing.join(", ")}; the detectors that need them stay silent`,
      );
    const access = await checkAccess(connection, plan.targets, { signal: stopper.signal });
    if (stopped) return;
    denied = access.denied.map((t) => ({ kind: kindKey(t), reason: "permission_denied" as const }));
    requiredUnavailable =
      plan.coverage.some((c) => c.reason === "api_unavailable" && REQUIRED.has(c.kind)) ||
      access.denied.some((t) => t.required);
    if (denied.length)
      logger.warn(
        `not permitted to list and watch: ${denied.map((d) => d.kind).join(", ")} (reported as permission_denied in coverage)`,
      );
    watched = access.allowed;
    for (const target of watched) startInformer(target);
    hooks.onWatching?.();
    for (const informer of informers) informer.start();
  };

  const startInformer = (target: WatchTarget) => {
    const inventoryKind = target.metadataOnly ? kindKey(target) : target.kind;
    setState(target, "pending");
    let count = 0;
    let dropped = false;
    const drop = (reason: "object_cap_reached" | "budget_exceeded") => {
      dropped = true;
      informer.stop();
      metadataTotal -= count;
      dropReasons.set(kindKey(target), reason);
      logger.warn(
        `informer ${target.kind}: ${count} objects ${reason === "object_cap_reached" ? `reach the cap of ${limits.objectCap} for one kind` : `would take the metadata-only kinds over their budget of ${limits.metadataBudget} objects`}; no longer watched (coverage: ${reason})`,
      );
      // Not failing: it is left out on purpose, and coverage says why.
      setState(target, "synced");
      hooks.onDropped?.(target, inventoryKind, reason, count);
    };
    const read = options.protobuf === false ? undefined : protobufRead(target.path, target.kind, target.metadataOnly);
    const informer = createInformer({
      connection,
      kind: { kind: target.kind, path: target.path },
      ...(read
        ? {
            protobuf: {
              ...read,
              onUndecodable: (error: ProtobufError) => {
                hooks.onHandlerFailure?.(target.kind, error);
                logger.warn(
                  `informer ${target.kind}: an object that does not decode as protobuf (${error.message}); skipped`,
                );
              },
            },
          }
        : {}),
      clock,
      logger,
      resyncMs: options.resyncMs,
      ...(options.informerBackoffMs !== undefined ? { initialBackoffMs: options.informerBackoffMs } : {}),
      ...(options.requestDeadlinesMs
        ? {
            listTimeoutMs: options.requestDeadlinesMs.list,
            watchHeadersTimeoutMs: options.requestDeadlinesMs.watchHeaders,
          }
        : {}),
      onEvent: (type, object) => {
        if (dropped) return;
        if (target.metadataOnly) {
          const delta = type === "ADDED" ? 1 : type === "DELETED" ? -1 : 0;
          count += delta;
          metadataTotal += delta;
          if (count > limits.objectCap) return drop("object_cap_reached");
          if (metadataTotal > limits.metadataBudget) return drop("budget_exceeded");
        }
        try {
          const kept = target.metadataOnly
            ? metadataOnly(object)
            : target.sensitive
              ? hashSecretValues(object)
              : object;
          hooks.onEvent?.(inventoryKind, type, kept);
        } catch (error) {
          hooks.onHandlerFailure?.(target.kind, error);
          logger.error(
            `informer ${target.kind}: handler failed on ${object?.metadata?.namespace ?? ""}/${object?.metadata?.name ?? ""}: ${(error as Error).message}`,
          );
        }
      },
      onStall: () => hooks.onStall?.(target),
      onProgress: () => hooks.onProgress?.(target),
      onState: (state) => {
        if (dropped) return;
        if (state.state === "synced") setState(target, "synced");
        // A kind that timed out stays sync_timeout while its retries fail (only a sync ends it): coverage and
        // mon_coverage_uncovered_kinds must not flap with each retry, or MonCoverageLost never holds.
        else if (state.state === "failing")
          setState(target, states.get(kindKey(target)) === "sync_timeout" ? "sync_timeout" : "failing", state);
      },
    });
    informers.push(informer);
    const timeoutMs = options.syncTimeoutMs ?? 120_000;
    timers.push(
      clock.setTimer(() => {
        if (states.get(kindKey(target)) === "synced") return;
        logger.warn(`informer ${target.kind}: cache not synced after ${Math.round(timeoutMs / 1000)} s`);
        setState(target, "sync_timeout");
      }, timeoutMs),
    );
  };

  return {
    start() {
      void run();
    },
    stop() {
      stopped = true;
      stopper.abort(new DOMException("stopped", "AbortError"));
      for (const cancel of timers) cancel();
      for (const informer of informers) informer.stop();
    },
    targets: () => watched,
    coverage() {
      const timedOut = watched
        .filter((t) => states.get(kindKey(t)) === "sync_timeout")
        .map((t) => ({ kind: kindKey(t), reason: "sync_timeout" as const }));
      const bounded = [...dropReasons].map(([kind, reason]) => ({ kind, reason }));
      return [...planned, ...denied, ...timedOut, ...bounded].sort((a, b) => a.kind.localeCompare(b.kind));
    },
    optionalMissing: () => optionalMissing,
    requiredSynced() {
      if (requiredUnavailable || watched.length === 0) return false;
      return watched.every((t) => !t.required || states.get(kindKey(t)) === "synced");
    },
    states: () => states,
  };
}

const REQUIRED = new Set(KNOWN_KINDS.filter((k) => k.required).map(kindKey));
