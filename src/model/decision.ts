import type { Incident } from "./incident.ts";

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
