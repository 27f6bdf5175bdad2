import type { LeasePayload, SignedLease } from "./lease.ts";
import { maskLicenseId } from "./lease.ts";

/** The license states of spec 3.4. Pro runs in `active` and `grace`. */
export type LicenseStateName =
  | "community"
  | "invalid"
  | "pending"
  | "active"
  | "grace"
  | "expired"
  | "revoked"
  | "conflict";

export const LICENSE_STATES: readonly LicenseStateName[] = [
  "community",
  "invalid",
  "pending",
  "active",
  "grace",
  "expired",
  "revoked",
  "conflict",
];

const DAY = 86_400_000;
/** Spec 8: the lease lasts 3 days (the server sets it), grace 4 days, at most 7 days of Pro without the server. */
export const GRACE_MS = 4 * DAY;
export const MAX_OFFLINE_MS = 7 * DAY;

/** Everything mon knows of its license; times are epoch ms. Persisted in the instance Secret. */
export interface LicenseState {
  readonly name: LicenseStateName;
  readonly licenseId?: string;
  readonly instanceKey?: string;
  /** The last signed answer that granted Pro (restored after a restart without reaching the server). */
  readonly lease?: SignedLease;
  readonly leaseExpiresAt?: number;
  readonly licenseExpiresAt?: number;
  /** The last time the server answered anything signed. */
  readonly lastContactAt?: number;
  /** End of grace: the earlier of lease end + 4 days and last contact + 7 days. */
  readonly graceUntil?: number;
  /** Why Pro is not running, in plain words (for notices, logs and `mon_license_state`). */
  readonly reason?: string;
  /** The highest clock reading ever seen: time never runs backwards for the lease (spec 5.4). */
  readonly highWater: number;
  /** Notices already sent, so each is sent once per change (spec 3.4), across restarts too. */
  readonly notified: readonly string[];
}

/** What happened. `answer` is a server answer whose signature, cluster and nonce were verified. */
export type LicenseEvent =
  | { readonly type: "no_key" }
  | { readonly type: "answer"; readonly payload: LeasePayload; readonly signed: SignedLease }
  | {
      readonly type: "unreachable";
      readonly detail: string;
      /** The server answered, with a signature this build does not trust (not a network error). */
      readonly untrusted?: boolean;
    }
  | { readonly type: "tick" }
  | { readonly type: "deactivated" };

/** A notice for the alert providers (spec 3.4, 6: license notices, once per change). */
export interface LicenseNotice {
  readonly key: string;
  readonly text: string;
}

/** The state before any license work: Community, clock mark `highWater`. */
export function initialLicenseState(highWater = 0): LicenseState {
  return { name: "community", highWater, notified: [] };
}

/** True when the state runs Pro. */
export function isPro(state: Pick<LicenseState, "name">): boolean {
  return state.name === "active" || state.name === "grace";
}

/**
 * The license state machine (docs/license.md "States"). Pure: `now` is the clock reading, but never earlier
 * than the state's high-water mark, so setting the clock back extends nothing. Returns the next state and the
 * notices the change calls for (each once: their keys are remembered in `notified`).
 */
export function stepLicense(
  state: LicenseState,
  event: LicenseEvent,
  now: number,
): { state: LicenseState; notices: LicenseNotice[] } {
  const t = Math.max(now, state.highWater);
  let next: LicenseState = { ...state, highWater: t };
  switch (event.type) {
    case "no_key":
      next = { name: "community", highWater: t, notified: state.notified, reason: "no license key is configured" };
      break;
    case "deactivated":
      next = { name: "community", highWater: t, notified: state.notified, reason: "the license key was removed" };
      break;
    case "answer": {
      const p = event.payload;
      const common = {
        ...next,
        lastContactAt: t,
        ...(p.licenseId ? { licenseId: p.licenseId } : {}),
        ...(p.licenseExpiresAt ? { licenseExpiresAt: p.licenseExpiresAt * 1000 } : {}),
        graceUntil: undefined,
      };
      if (p.status === "active") {
        next = {
          ...common,
          name: "active",
          instanceKey: p.instanceKey ?? state.instanceKey,
          lease: event.signed,
          leaseExpiresAt: (p.leaseExpiresAt ?? 0) * 1000,
          reason: undefined,
        };
      } else {
        const reason =
          p.status === "revoked"
            ? "the license was revoked"
            : p.status === "conflict"
              ? "the license is bound to another cluster"
              : "the license key is not valid";
        next = {
          ...common,
          name: p.status,
          lease: undefined,
          leaseExpiresAt: undefined,
          reason: p.reason ? `${reason} (${p.reason})` : reason,
        };
      }
      break;
    }
    case "unreachable":
      // Network errors never end Pro by themselves: the lease and then grace run out (tick).
      if (state.name === "community" || state.name === "pending")
        next = {
          ...next,
          name: "pending",
          reason: event.untrusted
            ? "the license server answered with a signature this build does not trust"
            : `the license server could not be reached (${event.detail})`,
        };
      break;
    case "tick":
      break;
  }
  return withNotices(state, expire(next, t), t);
}

/** When the state next changes by time alone (lease end, grace end, a license-ending notice), or undefined. */
export function nextTimeChange(state: LicenseState): number | undefined {
  const times: number[] = [];
  if (state.name === "active" && state.leaseExpiresAt) times.push(state.leaseExpiresAt);
  if (state.name === "grace" && state.graceUntil) times.push(state.graceUntil);
  if (isPro(state) && state.licenseExpiresAt)
    for (const days of [14, 3]) times.push(state.licenseExpiresAt - days * DAY);
  const future = times.filter((x) => x > state.highWater);
  return future.length ? Math.min(...future) : undefined;
}

// --- internal ---

function expire(state: LicenseState, t: number): LicenseState {
  let s = state;
  if (s.name === "active" && s.leaseExpiresAt !== undefined && t >= s.leaseExpiresAt) {
    const graceUntil = Math.min(s.leaseExpiresAt + GRACE_MS, (s.lastContactAt ?? s.leaseExpiresAt) + MAX_OFFLINE_MS);
    s = { ...s, name: "grace", graceUntil, reason: undefined };
  }
  if (s.name === "grace" && s.graceUntil !== undefined && t >= s.graceUntil)
    s = {
      ...s,
      name: "expired",
      lease: undefined,
      reason: "the license server was not reached in 7 days and grace ended",
    };
  return s;
}

function withNotices(
  before: LicenseState,
  after: LicenseState,
  t: number,
): { state: LicenseState; notices: LicenseNotice[] } {
  const notices: LicenseNotice[] = [];
  const notified = new Set(after.notified);
  const once = (key: string, text: string) => {
    if (notified.has(key)) return;
    notified.add(key);
    notices.push({ key, text });
  };
  const id = maskLicenseId(after.licenseId);
  const date = (ms: number | undefined) => (ms ? new Date(ms).toISOString().slice(0, 10) : "?");
  const changed = before.name !== after.name;
  if (changed && isPro(after) && !isPro(before))
    once(`enabled:${after.lastContactAt}`, `mon Pro is enabled: license ${id} is active.`);
  if (changed && after.name === "grace")
    once(
      `grace:${after.leaseExpiresAt}`,
      `mon could not renew license ${id} since ${date(after.lastContactAt)}; Pro continues in grace until ${date(after.graceUntil)}. Check that mon can reach the license server.`,
    );
  if (changed && isPro(before) && !isPro(after))
    once(
      `disabled:${after.name}:${t}`,
      `mon Pro is disabled: ${after.reason ?? after.name}. mon continues as Community.`,
    );
  const ends = after.licenseExpiresAt;
  if (isPro(after) && ends && t < ends) {
    const left = ends - t;
    // The nearer threshold only: a license first seen 2 days before its end gets the 3-day notice, not both.
    const days = left <= 3 * DAY ? 3 : left <= 14 * DAY ? 14 : undefined;
    if (days !== undefined) {
      if (days === 3) notified.add(`ending-14:${ends}`);
      once(
        `ending-${days}:${ends}`,
        `mon Pro license ${id} ends on ${date(ends)} (in ${Math.max(1, Math.ceil(left / DAY))} days); renew it to keep Pro.`,
      );
    }
  }
  // Keep the memory of notices bounded: the newest 50 keys.
  return { state: { ...after, notified: [...notified].slice(-50) }, notices };
}
