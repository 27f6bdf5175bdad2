import parsePrometheusTextFormat from "parse-prometheus-text-format";

/** One sample of a counter: its labels and value. */
export interface CounterSample {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/**
 * The samples of the named metric families in a Prometheus text exposition (`/metrics`), parsed by
 * `parse-prometheus-text-format`. Only the lines of those families are parsed, so a 1.7 MB API server
 * exposition costs little and a line mon does not read cannot break the parse. Returns a map from family name
 * to samples (empty when absent). Throws Error when the family's own lines do not parse.
 */
export function readCounters(text: string, names: readonly string[]): Map<string, CounterSample[]> {
  const wanted = new Set(names);
  const lines = text.split("\n").filter((line) => {
    const m = /^(?:# (?:HELP|TYPE) )?([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line);
    return m !== null && wanted.has(m[1]!);
  });
  const out = new Map<string, CounterSample[]>(names.map((n) => [n, []]));
  for (const family of parsePrometheusTextFormat(`${lines.join("\n")}\n`)) {
    if (!wanted.has(family.name)) continue;
    out.set(
      family.name,
      family.metrics
        .map((s) => ({ labels: s.labels ?? {}, value: Number(s.value) }))
        .filter((s) => Number.isFinite(s.value)),
    );
  }
  return out;
}

/**
 * What happened between two reads of running totals keyed by source (pod uid, or one key for the API
 * server): the per-key increase of every field, summed over keys present in both reads. A key whose value
 * went down restarted and is left out (its counters began again). Pure.
 */
export function increase<T extends { readonly [K in keyof T]: number }>(
  before: ReadonlyMap<string, T>,
  after: ReadonlyMap<string, T>,
): T | undefined {
  let total: Record<string, number> | undefined;
  for (const [key, next] of after) {
    const prev = before.get(key);
    if (!prev) continue;
    const now = next as Record<string, number>;
    const then = prev as Record<string, number>;
    const fields = Object.keys(now);
    if (fields.some((f) => now[f]! < (then[f] ?? 0))) continue;
    total ??= Object.fromEntries(fields.map((f) => [f, 0]));
    for (const f of fields) total[f] = total[f]! + now[f]! - (then[f] ?? 0);
  }
  return total as T | undefined;
}
