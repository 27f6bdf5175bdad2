import type { Message } from "../model/message.ts";
import { redact } from "../redact/redact.ts";
import { STATUS_EMOJI } from "./render.ts";

/** Why this start is not an ordinary one (spec 6 startup message): an unwatched period, or a state reset. */
export interface StartContext {
  /** Epoch ms of the last sign of life of the previous process, when known and too long ago (a gap). */
  readonly lastAlive?: number;
  /** The state file was set aside and recreated. */
  readonly stateReset?: boolean;
}

/**
 * The startup message (spec 6): one plain sentence with one status emoji, no links, stating the version.
 * An ordinary start is low-tier (🔵); a restart after a monitoring gap or a state reset is notify-tier (🟠)
 * and names the unwatched period. `now` is epoch ms. Pure.
 */
export function renderStartupNotice(version: string, cluster: string, now: number, start: StartContext = {}): Message {
  const name = cluster || "cluster";
  const minutes = start.lastAlive !== undefined ? Math.max(1, Math.round((now - start.lastAlive) / 60_000)) : 0;
  const clock = (t: number) => new Date(t).toISOString().slice(11, 16);
  const why = [
    ...(start.lastAlive !== undefined
      ? [`${clock(start.lastAlive)}–${clock(now)} UTC (${minutes} min) was not watched`]
      : []),
    ...(start.stateReset
      ? ["its state file could not be used and was recreated, so open incidents are told again"]
      : []),
  ];
  const mark = why.length ? "notify" : "low";
  const sentence = why.length
    ? `mon ${version} restarted on ${name}: ${why.join("; ")}.`
    : `mon ${version} started watching ${name}.`;
  const text = `${STATUS_EMOJI[mark]} ${sentence}`;
  return {
    id: `startup@${now}#1`,
    incidentId: `startup@${now}`,
    action: "announce",
    mark,
    emoji: STATUS_EMOJI[mark],
    tier: why.length ? "warning" : "normal",
    mode: "notify",
    title: sentence,
    text,
    markdown: text,
    root: { kind: "Cluster", name },
    reason: "Startup",
    findings: [],
    news: [],
    dedupKey: `mon-${name}-startup-${now}`,
    at: now,
    delivery: "notice",
  };
}

/** Why mon was blind, in words, where the spec 7.3 reason alone would not say it. */
const BLIND_REASONS: Readonly<Record<string, string>> = {
  component_stalled: "its watches stopped delivering changes",
};

/**
 * The notice of a period mon could not watch while it ran (spec 6: a monitoring gap names the unwatched
 * period): the API server failed or hung for `period` (epoch ms) with the failing kind's health `reason`.
 * What began and ended inside it was not seen; what is still failing is told as usual. 🟠, notify-tier. Pure.
 */
export function renderUnwatchedNotice(
  cluster: string,
  period: { from: number; to: number; reason: string },
  now: number,
): Message {
  const name = cluster || "cluster";
  const clock = (t: number) => new Date(t).toISOString().slice(11, 19);
  const seconds = Math.round((period.to - period.from) / 1000);
  const length = seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
  const sentence = `mon could not watch ${name} from ${clock(period.from)} to ${clock(period.to)} UTC (${length}, ${BLIND_REASONS[period.reason] ?? period.reason.replaceAll("_", " ")}): failures that began and ended in that window were not seen; those still failing are told now.`;
  return notice(name, now, {
    id: `unwatched@${period.from}#1`,
    incidentId: `unwatched@${period.from}`,
    action: "announce",
    mark: "notify",
    sentence,
    reason: "Unwatched",
    dedupKey: `mon-${name}-unwatched-${period.from}`,
  });
}

/**
 * The two messages of a blind spot (issue 32: a monitor that goes blind must not stay silent): `announce` when
 * mon has not seen `what` for a while (`from` epoch ms, the health `reason`), `resolve` in the same thread when
 * it sees it again (`to`; `restarted` when a later process does), or when mon stops while blind (`stopped`: a
 * process without a state file leaves no thread open). `key` names the thread (`blind:<key>@<from>`). 🟠 then
 * ✅; notify-tier notices, sent to every provider but paging tools and trackers. Pure.
 */
export function renderBlindNotice(
  cluster: string,
  blind: {
    key: string;
    what: string;
    from: number;
    reason: string;
    to?: number;
    stopped?: boolean;
    restarted?: boolean;
  },
  now: number,
): Message {
  const name = cluster || "cluster";
  const clock = (t: number) => new Date(t).toISOString().slice(11, 19);
  const reason = BLIND_REASONS[blind.reason] ?? blind.reason.replaceAll("_", " ");
  const seeing = blind.to !== undefined;
  const minutes = Math.max(1, Math.round(((blind.to ?? now) - blind.from) / 60_000));
  const sentence = blind.stopped
    ? `mon stopped on ${name} while it could not see ${blind.what} (since ${clock(blind.from)} UTC, ${minutes} min, ${reason}); a restarted mon announces itself and watches afresh, failures that began and ended meanwhile are not seen.`
    : seeing
      ? `mon sees ${blind.what} in ${name} again${blind.restarted ? " after a restart" : ""}: it could not from ${clock(blind.from)} to ${clock(blind.to ?? now)} UTC (${minutes} min, ${reason}).`
      : `mon cannot see ${blind.what} in ${name} since ${clock(blind.from)} UTC (${minutes} min, ${reason}): failures there are not detected until it sees again.`;
  const incidentId = `blind:${blind.key}@${blind.from}`;
  return notice(name, now, {
    id: `${incidentId}#${seeing ? 2 : 1}`,
    incidentId,
    action: seeing ? "resolve" : "announce",
    mark: seeing ? "resolved" : "notify",
    sentence,
    reason: "Blind",
    dedupKey: `mon-${name}-blind-${blind.key}-${blind.from}`,
  });
}

/**
 * The plain form of a failure mon could not carry through its pass (issue 41, item 6): a stage threw on it
 * (`stage`, `id` the incident's root or the finding's key, `error` redacted), so it was set aside while every
 * other incident went on. Said once per stage and id; the rest of the cluster is watched as usual. 🟠,
 * notify-tier. Pure.
 */
export function renderSetAsideNotice(
  cluster: string,
  setAside: { stage: string; id: string; error: string },
  now: number,
): Message {
  const name = cluster || "cluster";
  const sentence = `mon could not process ${setAside.id} in ${name} (stage ${setAside.stage}: ${redact(setAside.error).text}): it is set aside and named in mon's log, so a failure there may not be told; everything else is watched as usual.`;
  const incidentId = `set-aside:${setAside.stage}:${setAside.id}`;
  return notice(name, now, {
    id: `${incidentId}#1`,
    incidentId,
    action: "announce",
    mark: "notify",
    sentence,
    reason: "SetAside",
    dedupKey: `mon-${name}-set-aside-${setAside.stage}-${setAside.id}`
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, "-")
      .slice(0, 255),
  });
}

/** A warning-tier notice about mon itself in the thread `incidentId`: one sentence after its status emoji. */
function notice(
  cluster: string,
  now: number,
  n: {
    id: string;
    incidentId: string;
    action: Message["action"];
    mark: "notify" | "resolved";
    sentence: string;
    reason: string;
    dedupKey: string;
  },
): Message {
  const text = `${STATUS_EMOJI[n.mark]} ${n.sentence}`;
  return {
    id: n.id,
    incidentId: n.incidentId,
    action: n.action,
    mark: n.mark,
    emoji: STATUS_EMOJI[n.mark],
    tier: "warning",
    mode: "notify",
    title: n.sentence,
    text,
    markdown: text,
    root: { kind: "Cluster", name: cluster },
    reason: n.reason,
    findings: [],
    news: [],
    dedupKey: n.dedupKey,
    at: now,
    delivery: "notice",
  };
}

/**
 * A plain notice of mon itself (spec 6): a license notice (once per change: Pro enabled, ending in 14 or 3
 * days, grace, Pro disabled with the reason) or the upgrade notice. One plain sentence, 🟠 when Pro is at risk
 * or ended, 🔵 otherwise. Pure.
 */
export function renderNotice(
  sentence: string,
  cluster: string,
  now: number,
  serial: number,
  reason: "License" | "Upgrade" = "License",
): Message {
  const name = cluster || "cluster";
  const mark = reason === "License" && /disabled|grace|ends on/.test(sentence) ? "notify" : "low";
  const text = `${STATUS_EMOJI[mark]} ${sentence} [${name}]`;
  return {
    id: `${reason.toLowerCase()}@${now}#${serial}`,
    incidentId: `${reason.toLowerCase()}@${now}#${serial}`,
    action: "announce",
    mark,
    emoji: STATUS_EMOJI[mark],
    tier: mark === "notify" ? "warning" : "normal",
    mode: "notify",
    title: sentence,
    text,
    markdown: text,
    root: { kind: "Cluster", name },
    reason,
    findings: [],
    news: [],
    dedupKey: `mon-${name}-${reason.toLowerCase()}-${now}-${serial}`,
    at: now,
    delivery: "notice",
  };
}

/**
 * The test alert of `POST /test-alert` (docs/health.md "Diagnostics"): one plain sentence saying it is a
 * test, so an on-call engineer can check a provider end to end. `now` is epoch ms. Pure.
 */
export function renderTestAlert(version: string, cluster: string, now: number): Message {
  const name = cluster || "cluster";
  const sentence = `Test alert from mon ${version} on ${name}: this provider receives mon's messages. Nothing is wrong.`;
  const text = `${STATUS_EMOJI.low} ${sentence}`;
  return {
    id: `test-alert@${now}#1`,
    incidentId: `test-alert@${now}`,
    action: "announce",
    mark: "low",
    emoji: STATUS_EMOJI.low,
    tier: "normal",
    mode: "notify",
    title: sentence,
    text,
    markdown: text,
    root: { kind: "Cluster", name },
    reason: "TestAlert",
    findings: [],
    news: [],
    dedupKey: `mon-${name}-test-alert-${now}`,
    at: now,
    delivery: "notice",
  };
}
