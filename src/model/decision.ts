import type { FoldReason, Incident } from "./incident.ts";
import type { ObjectRef } from "./object-ref.ts";

/** The lifecycle actions of spec 3.1, plus the combined message for an incident that opened and resolved before its announcement went out. */
export type Action = "announce" | "update" | "resolve" | "opened_resolved";

/**
 * How a decision reaches people when it is not a message of its own (spec 6): `startup summary` — folded
 * into the one summary of problems present at startup; `roll-up` — folded into the one message naming every
 * announcement of its pass; `digest` — listed in the next low-priority digest (tier `normal`); `paging` —
 * sent on its own only to paging tools and issue trackers. Absent means a message of its own.
 */
export type Delivery = "startup summary" | "roll-up" | "digest" | "paging";

/** One lifecycle decision (spec 3.1); `news` lists what became true since the last message (updates only). */
export interface Decision {
  readonly action: Action;
  readonly incident: Incident;
  readonly news: readonly string[];
  /** Epoch ms of the decision. */
  readonly at: number;
  readonly delivery?: Delivery;
}

/** Spec 1.7 audit skip reasons: folding reasons of correlation, plus `baseline` and `cooldown` of the lifecycle. */
export type SkipReason = FoldReason | "baseline" | "cooldown";

/**
 * A decision that sends nothing (spec 6 audit `skipped`): `baseline` — a low-priority problem already present
 * at startup; `cooldown` — news held until the incident's update cooldown ends; the folding reasons — a
 * would-be incident (`subject`) told inside `incident` instead. Recorded once per cause, not every pass.
 */
export interface Skip {
  readonly reason: SkipReason;
  /** The incident the decision is about: the one it was folded into, or the one held. */
  readonly incident: Incident;
  /** The root that got no message of its own. */
  readonly subject: ObjectRef;
  /** Epoch ms of the decision. */
  readonly at: number;
}
