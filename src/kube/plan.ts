import type { ServedResource } from "./discovery.ts";
import { KNOWN_KINDS, kindKey, NOT_WATCHED, type WatchTarget } from "./kinds.ts";

import type { CoverageReason } from "../model/coverage.ts";

export type { CoverageReason } from "../model/coverage.ts";

/** One kind not watched, and why (the `coverage` object of /health, spec 2.6). */
export interface CoverageEntry {
  /** `group/resource` (`secrets`, `storage.k8s.io/volumeattachments`). */
  readonly kind: string;
  readonly reason: CoverageReason;
}

/** The watch plan: what to watch, what is not watched and why, and which optional APIs are missing. */
export interface WatchPlan {
  readonly targets: readonly WatchTarget[];
  readonly coverage: readonly CoverageEntry[];
  /** Optional APIs (spec 1.5) the server does not serve: health says `optional_api_unavailable`. */
  readonly optionalMissing: readonly string[];
}

/**
 * Decides what to watch from what the server serves (spec 1.1, 1.5, 5.5): every known kind in full, every
 * other served kind for its metadata (custom resources included), Secrets only when `watchSecrets`.
 * Known kinds the server does not serve are `api_unavailable` (required ones make readiness fail) or, for
 * optional APIs, listed in `optionalMissing`. Pure.
 */
export function planWatches(served: readonly ServedResource[], options: { watchSecrets: boolean }): WatchPlan {
  const targets: WatchTarget[] = [];
  const coverage: CoverageEntry[] = [];
  const optionalMissing: string[] = [];
  const byKey = new Map(served.map((r) => [kindKey(r), r]));
  for (const known of KNOWN_KINDS) {
    const key = kindKey(known);
    const found = byKey.get(key);
    if (!found) {
      if (known.optional) optionalMissing.push(key);
      else coverage.push({ kind: key, reason: "api_unavailable" });
      continue;
    }
    if (known.sensitive && !options.watchSecrets) {
      coverage.push({ kind: key, reason: "disabled_by_config" });
      continue;
    }
    targets.push(
      target(found, {
        required: Boolean(known.required),
        metadataOnly: false,
        sensitive: Boolean(known.sensitive),
        ...(known.namespace ? { namespace: known.namespace } : {}),
      }),
    );
  }
  const knownKeys = new Set(KNOWN_KINDS.map(kindKey));
  for (const r of served) {
    const key = kindKey(r);
    if (knownKeys.has(key) || NOT_WATCHED.has(key)) continue;
    targets.push(target(r, { required: false, metadataOnly: true, sensitive: false }));
  }
  return { targets, coverage, optionalMissing };
}

// --- internal ---

function target(
  r: ServedResource,
  extra: { required: boolean; metadataOnly: boolean; sensitive: boolean; namespace?: string },
): WatchTarget {
  const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  const scope = extra.namespace && r.namespaced ? `/namespaces/${extra.namespace}` : "";
  return {
    group: r.group,
    version: r.version,
    resource: r.resource,
    kind: r.kind,
    path: `${base}${scope}/${r.resource}`,
    ...extra,
  };
}
