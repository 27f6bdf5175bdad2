import type { LifecycleState } from "./lifecycle.ts";

/** Version of the lifecycle snapshot's shape; a snapshot of another version is not restored. */
export const SNAPSHOT_VERSION = 1;

/**
 * The lifecycle state as JSON (spec 1.9: the Pro state file keeps the conversations): what the next leader
 * or the next process needs to continue every open incident instead of announcing it again — open and held
 * incidents, roll-ups, the digest being gathered, the day's recurrence memory and the repage window.
 */
export interface LifecycleSnapshot {
  readonly version: number;
  readonly incidents: [string, unknown][];
  readonly rollUps: [string, unknown][];
  readonly digest: unknown;
  readonly memory: [string, unknown][];
  readonly recent: [string, unknown][];
}

/** The snapshot of `state` (plain JSON: Maps as entry lists). */
export function toSnapshot(state: LifecycleState): LifecycleSnapshot {
  return {
    version: SNAPSHOT_VERSION,
    incidents: [...state.incidents],
    rollUps: [...state.rollUps],
    digest: state.digest,
    memory: [...state.memory],
    recent: [...state.recent],
  };
}

/**
 * The lifecycle state a snapshot holds, or undefined when it is not one of this version (a state file written
 * by another mon version, or damaged): the caller starts with an empty state, as after a state reset.
 */
export function fromSnapshot(value: unknown): LifecycleState | undefined {
  if (!value || typeof value !== "object") return undefined;
  const s = value as Partial<LifecycleSnapshot>;
  if (s.version !== SNAPSHOT_VERSION) return undefined;
  const entries = (list: unknown) =>
    Array.isArray(list) &&
    list.every(
      (e) => Array.isArray(e) && e.length === 2 && typeof e[0] === "string" && e[1] && typeof e[1] === "object",
    );
  if (![s.incidents, s.rollUps, s.memory, s.recent].every(entries)) return undefined;
  const digest = s.digest as { opened?: unknown; resolved?: unknown } | undefined;
  if (!digest || !Array.isArray(digest.opened) || !Array.isArray(digest.resolved)) return undefined;
  // Shapes this version wrote itself (checked above to the depth a damaged record would fail).
  return {
    incidents: new Map(s.incidents as [string, never][]),
    rollUps: new Map(s.rollUps as [string, never][]),
    digest: digest as never,
    memory: new Map(s.memory as [string, never][]),
    recent: new Map(s.recent as [string, never][]),
  };
}
