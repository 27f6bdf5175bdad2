import type { Absence } from "./absence.ts";
import type { ProbeStatus } from "./probe.ts";
/** Requests counted over `seconds`: all, and those answered with a 5xx. */
export interface RequestCounts {
  readonly total: number;
  readonly errors: number;
  readonly seconds: number;
}

/** DNS responses counted over `seconds`: all, SERVFAIL, and forward health-check breaks (every upstream down). */
export interface DnsResponseCounts {
  readonly responses: number;
  readonly servfail: number;
  readonly upstreamBroken: number;
  readonly seconds: number;
}

import type { Event, Kinds, ObjectLike, Pod } from "./kube.ts";

/** A Kubernetes object as served by the API (JSON), of any kind (custom resources included). */
// biome-ignore lint/suspicious/noExplicitAny: the untyped object shape that typed views of each kind replace.
export type KubeObject = Record<string, any>;

/**
 * One change of the Inventory as a subscriber sees it (kube/inventory.ts `subscribe`): the kind, the version
 * it held before (undefined when new) and the one it holds now (undefined when deleted). `watched` alone says
 * the kind became watched or was forgotten. Incremental passes (detect/incremental.ts) turn it into the keys
 * whose readers must run again.
 */
export interface InventoryChange {
  readonly kind: string;
  readonly previous?: KubeObject;
  readonly next?: KubeObject;
  readonly watched?: boolean;
}

/**
 * The read side of the Inventory (ARCHITECTURE.md kube/): what detectors and correlation may look at.
 * Implemented by kube/inventory.ts; tests build one from plain objects.
 */
export interface InventoryView {
  /** Every cached object of a kind (`Pod`, `Node`, `Deployment`, ...): typed for the built-in kinds (model/kube.ts). */
  list<K extends keyof Kinds>(kind: K): readonly Kinds[K][];
  list(kind: string): readonly ObjectLike[];
  /**
   * The cached objects of a kind in one namespace: what `list(kind)` holds with that `metadata.namespace`,
   * in the same order, without a scan of the whole kind per call (issue 33: indexed lookups).
   */
  listIn<K extends keyof Kinds>(kind: K, namespace: string): readonly Kinds[K][];
  listIn(kind: string, namespace: string): readonly ObjectLike[];
  /** One object by kind, namespace (undefined for cluster-scoped) and name. */
  get<K extends keyof Kinds>(kind: K, namespace: string | undefined, name: string): Kinds[K] | undefined;
  get(kind: string, namespace: string | undefined, name: string): ObjectLike | undefined;
  /** Pods whose `spec.nodeName` is `node`. */
  podsOnNode(node: string): readonly Pod[];
  /**
   * The cached core/v1 Events about the object with this uid (`involvedObject.uid`), in no set order: what the
   * kubelet said about a pod (probe failures, kills) whichever of its containers' runs it concerned.
   */
  eventsAbout(uid: string): readonly Event[];
  /**
   * The controller chain above an object, nearest first (Pod → ReplicaSet → Deployment); stops at an owner not
   * in the cache, except a CronJob's run: a Job not cached whose name is a run of a cached CronJob
   * (model/cronjob-run.ts) is followed by that CronJob.
   */
  ownerChain(object: ObjectLike): readonly ObjectLike[];
  /**
   * True when the kind is watched and synced, so an absent object really is absent (spec 1.5: a detector whose
   * lister is missing skips, it never guesses). False for kinds not watched (denied, disabled, not served).
   */
  watches(kind: string): boolean;
  /** Who owns an IPv4 address: a Service ClusterIP, a Pod IP or a Node InternalIP (spec 6.8), as `namespace/name` or the node name. */
  ownerOfIp(ip: string): string | undefined;
}

/** Usage read outside the API objects: kubelet Summary API documents by node name (spec 1.2). */
export interface UsageView {
  readonly kubelet?: ReadonlyMap<string, unknown>;
  /** The API server's failing /readyz checks, and since when (epoch ms) they have been failing. */
  readonly apiServer?: { readonly failing: readonly string[]; readonly since: number };
  /**
   * The last /readyz reading, failing or not: when (epoch ms), and whether it could be read at all (false: 401,
   * 403, 404 or no answer). Absent before the first usage round.
   */
  readonly apiServerReading?: { readonly at: number; readonly readable: boolean };
  /** API server resource requests in the last usage round, from its /metrics (spec 4.3); absent when unreadable. */
  readonly apiRequests?: RequestCounts;
  /** Cluster DNS responses in the last usage round, from the CoreDNS pods' port 9153 (spec 4.3); absent when unreachable. */
  readonly dnsResponses?: DnsResponseCounts;
  /**
   * When each Service (`namespace/name`) was last seen with a ready endpoint (epoch ms), as remembered by the
   * daemon since `since` (epoch ms): page rule P1 (c) "had a ready endpoint in the last 24 h".
   */
  readonly served?: { readonly at: ReadonlyMap<string, number>; readonly since: number };
  /**
   * The control plane's last absence as this replica saw it (issue 53): the latest period its requests went
   * unanswered (the election's rounds) or its required caches were blind, from `from` to `to` (epoch ms; `to`
   * absent while it lasts). Absent when it never was.
   */
  readonly controlPlaneAway?: Absence;
  /** Active probes failing or slow (Pro, spec 2.3); absent when probes are off. */
  readonly probes?: readonly ProbeStatus[];
}
