import type { ChangeReport } from "./change.ts";
import type { Finding } from "./finding.ts";
import type { Impact } from "./impact.ts";
import type { ObjectRef } from "./object-ref.ts";
import type { DeliveryMode, Tier } from "./severity.ts";

/** An acknowledgement found on the cluster (Pro, spec 3.1): the object carrying `mon.io/ack` and its note as quoted. */
export interface Ack {
  readonly on: ObjectRef;
  readonly note: string;
}

/**
 * Why a would-be incident was folded into another (spec 1.7, audit skip reasons): `node_inhibition` — its pods
 * failed with their node; `cascading_suppression` — it fails because of a deeper cause (a missing Secret, an
 * unreachable endpoint, an error shared by several workloads); `mass_failure` — most of its namespace failed
 * at once (namespace outage), or most of the cluster's nodes were lost together (a heartbeat gap, issue 53).
 */
export type FoldReason = "node_inhibition" | "cascading_suppression" | "mass_failure";

/** One would-be incident folded into a draft's root: the root it would have had, and why it did not. */
export interface Fold {
  readonly root: ObjectRef;
  readonly reason: FoldReason;
}

/** What correlation hands to the lifecycle: a root and the findings it explains (spec 1.3). */
export interface IncidentDraft {
  readonly root: ObjectRef;
  /** The finding on the root itself, when the root is failing on its own (a lost node); absent for workload roots. */
  readonly rootReason: string;
  readonly findings: readonly Finding[];
  /** For a root several workloads depend on (an unreachable endpoint, spec 1.3): the workloads folded in. */
  readonly affected?: readonly ObjectRef[];
  /** Would-be incidents folded into this one, each once (audit `skipped` entries, spec 6). */
  readonly folded?: readonly Fold[];
  /** Every finding is out of scope, silenced or under maintenance (spec 1.4, 2.2, 2.7): nothing is sent for it. */
  readonly held?: boolean;
  /** `mon.io/ack` found on the root or a failing object (Pro, spec 3.1): the object and its note, one line, redacted. */
  readonly ack?: Ack;
}

/** Lifecycle phase of an incident conversation (spec 3.1). */
export type IncidentPhase = "open" | "resolved";

/**
 * An incident as the lifecycle keeps it (spec 2.6): a root, its findings, a tier, and what has been told.
 * `id` is derived from the root, so the same root failing again within the repage window reuses it.
 */
export interface Incident {
  readonly id: string;
  readonly root: ObjectRef;
  readonly rootReason: string;
  readonly tier: Tier;
  readonly mode: DeliveryMode;
  readonly pageRule?: string;
  readonly findings: readonly Finding[];
  /** The workloads folded into a shared root (see IncidentDraft.affected). */
  readonly affected?: readonly ObjectRef[];
  /** Who owns the root (`mon.io/owner`, spec 2.6), read when a message is rendered. */
  readonly owner?: string;
  /** Who owns the root and each finding's object, distinct, read with `owner`: routes match any of them. */
  readonly owners?: readonly string[];
  /** What changed before it began (issue 32), read with `owner` when a message is rendered; never kept. */
  readonly changed?: ChangeReport;
  /** Who is hurt (issue 32), read with `owner` when a message is rendered; never kept. */
  readonly impact?: Impact;
  /** Epoch ms mon first saw it as an incident (held, in the digest or told). */
  readonly openedAt: number;
  /**
   * Epoch ms of the pass that announced it (told on its own, or listed for the digest): a message that says
   * how late it was announced counts to here, not to `openedAt` — a silenced or low-priority incident can be
   * announced long after mon first saw it.
   */
  readonly announcedAt?: number;
  /**
   * Epoch ms the failure began: the earliest `since` of the findings it has had. Its announcement can come
   * later (a hold, the young-node grace), so how long it lasted counts from here.
   */
  readonly onsetAt?: number;
  readonly phase: IncidentPhase;
  readonly resolvedAt?: number;
  /** Facts already told to the user; an update is sent only when a new fact appears. */
  readonly told: readonly string[];
  /** Paging dedup key `mon-<cluster>-<root>-<mode>` (spec 2.6). */
  readonly dedupKey: string;
  /** Sequence number of the last decision on this incident. */
  readonly revision: number;
}
