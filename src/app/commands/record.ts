import { LAST_APPLIED } from "../../kube/project.ts";
import { createHmac, randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { KubeConnection } from "../../kube/connection.ts";
import { KNOWN_KINDS } from "../../kube/kinds.ts";
import { createClusterWatcher } from "../../kube/watcher.ts";
import type { KubeObject } from "../../model/inventory.ts";
import { redact } from "../../redact/redact.ts";
import type { Cancel, Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";

/** The kinds recorded: every kind mon knows (Secrets as mon keeps them, unless left out). */
const RECORDED = new Set(KNOWN_KINDS.map((k) => k.kind));

/** How a recording ended: its length ran out, its size did, or it was stopped. */
export type RecordEnd = "duration" | "size" | "stopped";

/** A recording in progress. */
export interface Recording {
  /** Resolves when it ends, with how, the events written and the bytes of events.jsonl. */
  readonly done: Promise<{ end: RecordEnd; events: number; bytes: number }>;
  stop(): void;
}

/**
 * `mon record` (issue 32): watches a real cluster read-only, as the daemon does, and writes a timeline in the
 * format of the recorded fixtures `mon replay` and the simulator read — `initial.json` (every object of the
 * known kinds once the required lists are synced: t=0), `events.jsonl` (each watch event after, `{t, type,
 * object}`, t in seconds) and a README.md. Secrets are recorded as mon keeps them (issue 52 item 10: a replay
 * without them would tell every workload reading one of a missing Secret) — names, types, keys and each value's
 * hash, salted anew for every recording so that no hash can be matched against a list of guesses, never a
 * value; `secrets: false` leaves them out. Free text is redacted as messages are (env values, command lines,
 * annotations, ConfigMap data, status and Event messages), kubectl's last-applied annotation is dropped,
 * managedFields are trimmed to who wrote last. Bounded by `durationMs` after t=0 and `maxBytes` of events.
 */
export function record(options: {
  connection: KubeConnection;
  clock: Clock;
  logger: Logger;
  out: string;
  durationMs: number;
  maxBytes: number;
  /** Record Secrets as mon keeps them (default true). */
  secrets?: boolean;
}): Recording {
  const { clock, logger, out } = options;
  const secrets = options.secrets !== false;
  const salt = randomBytes(32);
  mkdirSync(out, { recursive: true });
  const current = new Map<string, KubeObject>();
  const counts = new Map<string, number>();
  let t0: number | undefined;
  let events = 0;
  let bytes = 0;
  let finish: (end: RecordEnd) => void = () => {};
  const done = new Promise<{ end: RecordEnd; events: number; bytes: number }>((resolve) => {
    finish = (end) => resolve({ end, events, bytes });
  });
  let ended = false;
  const timers: Cancel[] = [];
  const watcher = createClusterWatcher({
    connection: options.connection,
    clock,
    logger,
    watchSecrets: secrets,
    resyncMs: 0,
    hooks: {
      onEvent(kind, type, object) {
        if (ended || !RECORDED.has(kind) || (kind === "Secret" && !secrets)) return;
        const clean = cleaned({ ...object, kind }, salt);
        const key = `${kind}/${object.metadata?.namespace ?? ""}/${object.metadata?.name}`;
        if (type === "DELETED") current.delete(key);
        else current.set(key, clean);
        if (t0 === undefined) return;
        const line = `${JSON.stringify({ t: Math.round(clock.now() - t0) / 1000, type, object: clean })}\n`;
        appendFileSync(join(out, "events.jsonl"), line);
        events++;
        bytes += Buffer.byteLength(line);
        counts.set(kind, (counts.get(kind) ?? 0) + 1);
        if (bytes >= options.maxBytes) end("size");
      },
    },
  });
  const end = (how: RecordEnd) => {
    if (ended) return;
    ended = true;
    for (const cancel of timers) cancel();
    watcher.stop();
    writeFileSync(join(out, "README.md"), readme(how, events, bytes, counts, t0, clock.now()));
    finish(how);
  };
  // t=0 is when every required list is synced: what exists then is the initial state.
  const waitForSync = () => {
    if (ended) return;
    if (!watcher.requiredSynced()) {
      timers.push(clock.setTimer(waitForSync, 250));
      return;
    }
    t0 = clock.now();
    // Whether Secrets are in it: a replay of a recording without them must not find every Secret missing.
    writeFileSync(join(out, "recording.json"), `${JSON.stringify({ secrets }, null, 1)}\n`);
    writeFileSync(join(out, "initial.json"), `${JSON.stringify([...current.values()], null, 1)}\n`);
    writeFileSync(join(out, "events.jsonl"), "");
    logger.info(`recording: ${current.size} objects at t=0; recording events into ${out}`);
    timers.push(clock.setTimer(() => end("duration"), options.durationMs));
  };
  watcher.start();
  waitForSync();
  return { done, stop: () => end("stopped") };
}

// --- internal ---

/**
 * Where what a workload or a person wrote can carry a credential: env values, command lines, annotations,
 * ConfigMap data, the messages of statuses, conditions and Events. Names, uids, images and references stay
 * as they are: a replay needs them to join objects.
 */
const FREE_TEXT = new Set(["value", "command", "args", "annotations", "data", "message", "note"]);

/**
 * An object as a recording keeps it: free text redacted, the last-applied manifest dropped. A Secret (already
 * hashed by the watcher, kube/object-filter.ts) keeps its keys, each value's hash hashed again with `salt`
 * (HMAC-SHA256): a change of value is still a change, but the recording holds nothing to test a guess against.
 */
export function cleaned(object: KubeObject, salt: Uint8Array = randomBytes(32)): KubeObject {
  const copy = structuredClone(object) as KubeObject;
  if (copy.metadata?.annotations) delete copy.metadata.annotations[LAST_APPLIED];
  delete copy.binaryData;
  let data: Record<string, string> | undefined;
  if (copy.kind === "Secret") {
    delete copy.stringData;
    const values = (copy.data ?? {}) as Record<string, unknown>;
    data = Object.fromEntries(
      Object.entries(values).map(([k, v]) => [
        k,
        `hmac-sha256:${createHmac("sha256", salt).update(String(v)).digest("hex")}`,
      ]),
    );
    delete copy.data;
  }
  const clean = walk(copy, false) as KubeObject;
  return data ? { ...clean, data } : clean;
}

function walk(value: unknown, free: boolean): unknown {
  if (typeof value === "string") return free ? redact(value).text : value;
  if (Array.isArray(value)) return value.map((v) => walk(v, free));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, free || FREE_TEXT.has(k))]));
  return value;
}

function readme(
  how: RecordEnd,
  events: number,
  bytes: number,
  counts: ReadonlyMap<string, number>,
  t0: number | undefined,
  now: number,
): string {
  const by = [...counts].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`);
  return [
    "# A timeline recorded by `mon record`",
    "",
    `- Recorded from ${t0 === undefined ? "(never synced)" : new Date(t0).toISOString()} for ${t0 === undefined ? 0 : Math.round((now - t0) / 1000)} s; ended by ${how}.`,
    `- ${events} watch events (${by.join(", ") || "none"}), ${bytes} bytes of events.jsonl.`,
    "- Secrets are recorded as mon keeps them: names, types and keys, each value only as a hash salted for this recording (never a value); free text (env values, command lines, annotations, ConfigMap data, messages) is redacted as mon redacts messages; kubectl's last-applied annotation is dropped.",
    "- Replay it: `mon replay <this directory> --config config.yaml [--config other.yaml]`.",
    "",
  ].join("\n");
}
