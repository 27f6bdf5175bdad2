import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { KubeObject } from "./store.ts";

/** One recorded watch event: `t` seconds after the initial lists were taken. */
export interface TimelineEvent {
  readonly t: number;
  readonly type: "ADDED" | "MODIFIED" | "DELETED";
  readonly object: KubeObject;
}

/**
 * What a container printed, read through `pods/log` as it ended (real-kubelet recordings, `logs.jsonl`): `t`
 * seconds after t=0, the instance's output as its log served it.
 */
export interface TimelineLog {
  readonly t: number;
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  readonly text: string;
}

/**
 * A watch-event timeline recorded from a real control plane (src/sim/testdata/kube-apiserver-v1.32/timelines):
 * the objects of the initial lists, every watch event with its time, and `startMs`, the wall-clock time (epoch
 * ms) of t=0 as the objects' own timestamps tell it.
 */
export interface Timeline {
  readonly name: string;
  readonly initial: readonly KubeObject[];
  readonly events: readonly TimelineEvent[];
  readonly startMs: number;
  /** Seconds from t=0 to the last event. */
  readonly lengthSeconds: number;
  /** The containers' output as it ended (`logs.jsonl`, real-kubelet recordings), in time order. */
  readonly logs?: readonly TimelineLog[];
  /**
   * Whether the recording holds the cluster's Secrets (issue 52 item 10): `recording.json`'s `secrets` (written
   * by `mon record`), else whether any Secret is in it. Without them a replay cannot tell a missing Secret.
   */
  readonly secretsRecorded: boolean;
}

/** The recorded timelines the repository carries. */
export const TIMELINES_DIR = join(import.meta.dirname, "testdata", "kube-apiserver-v1.32", "timelines");

/**
 * Reads a timeline directory (`initial.json`, `events.jsonl`, and `logs.jsonl` when there is one). Throws Error
 * naming the file when it is missing or not JSON.
 */
export function loadTimeline(dir: string): Timeline {
  const read = (file: string) => {
    try {
      return readFileSync(join(dir, file), "utf8");
    } catch (error) {
      throw new Error(`timeline ${dir}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? "error"})`);
    }
  };
  const initial = JSON.parse(read("initial.json")) as KubeObject[];
  /** A JSON-lines file's records, in time order. */
  const timed = <T extends { readonly t: number }>(file: string): T[] =>
    read(file)
      .split("\n")
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line) as T)
      .sort((a, b) => a.t - b.t);
  const events = timed<TimelineEvent>("events.jsonl");
  const logs = existsSync(join(dir, "logs.jsonl")) ? timed<TimelineLog>("logs.jsonl") : undefined;
  const meta = existsSync(join(dir, "recording.json"))
    ? (JSON.parse(read("recording.json")) as { secrets?: boolean })
    : {};
  const secretsRecorded =
    meta.secrets ?? [...initial, ...events.map((e) => e.object)].some((o) => o?.kind === "Secret");
  return {
    name: dir.split("/").filter(Boolean).pop() ?? dir,
    initial,
    events,
    secretsRecorded,
    startMs: startOf(events, initial),
    lengthSeconds: events.at(-1)?.t ?? 0,
    ...(logs ? { logs } : {}),
  };
}

/**
 * Epoch ms of t=0. Each event was written by someone whose managedFields entry carries the write's time (whole
 * seconds): the write happened just before the event arrived, so `time - t` estimates t=0 for each; the latest
 * estimate is the tightest (a write's second is truncated, never rounded up). Without any, the newest
 * timestamp of the initial objects.
 */
function startOf(events: readonly TimelineEvent[], initial: readonly KubeObject[]): number {
  let best: number | undefined;
  for (const e of events) {
    const times = (e.object.metadata?.managedFields ?? [])
      .map((m: { time?: string }) => Date.parse(m.time ?? ""))
      .filter((n: number) => !Number.isNaN(n));
    if (times.length === 0) continue;
    const estimate = Math.max(...times) - e.t * 1000;
    if (best === undefined || estimate > best) best = estimate;
  }
  if (best !== undefined) return best;
  const created = initial.map((o) => Date.parse(o.metadata?.creationTimestamp ?? "")).filter((n) => !Number.isNaN(n));
  return created.length ? Math.max(...created) : 0;
}
