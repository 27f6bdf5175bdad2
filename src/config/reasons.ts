import type { ProviderSettings } from "./alert.ts";
import { closestName } from "./unknown-keys.ts";

/**
 * Reason names the configuration mentions that no catalogue reason matches (spec 2.1 `reasons`, 2.2 silence
 * `reasons`, 2.4 route `reasons`, and the keys of `severityByReason`, `runbooks` and `templates`): each is a
 * warning with the closest reason, since such a name silently matches nothing. Names compare ignoring case and
 * a leading `!`. `known` is the catalogue's reason names. `config` is the configuration as written, before its
 * schema is checked: a name is reported even when another key of the file is invalid (lint reports every
 * problem at once), and a value of the wrong shape is skipped here (the schema names it).
 */
export function unknownReasonNames(
  config: unknown,
  providers: readonly ProviderSettings[],
  known: readonly string[],
): { key: string; name: string; hint?: string }[] {
  const lower = new Set(known.map((r) => r.toLowerCase()));
  const written = record(config);
  const mentioned: [string, readonly string[]][] = [
    ["reasons", strings(written.reasons)],
    ...list(written.silences).map(
      (rule, i) => [`silences.${i}.reasons`, strings(record(rule).reasons)] as [string, string[]],
    ),
    ["severityByReason", Object.keys(record(written.severityByReason))],
    ["runbooks", Object.keys(record(written.runbooks))],
    ["templates", Object.keys(record(written.templates))],
    ...providers.flatMap((p) => [
      ...(p.common.routes ?? []).map(
        (route, i) => [`alert.${p.name}.routes.${i}.reasons`, route.reasons ?? []] as [string, string[]],
      ),
      [`alert.${p.name}.templates`, Object.keys(p.common.templates ?? {})] as [string, string[]],
    ]),
  ];
  const out: { key: string; name: string; hint?: string }[] = [];
  for (const [key, names] of mentioned) {
    for (const name of names) {
      const bare = name.replace(/^!/, "");
      if (lower.has(bare.toLowerCase())) continue;
      const hint = closestName(bare, known);
      out.push({ key, name, ...(hint ? { hint } : {}) });
    }
  }
  return out;
}

// --- internal ---

/** `x` when it is a mapping, else an empty one. */
function record(x: unknown): Record<string, unknown> {
  return x !== null && typeof x === "object" && !Array.isArray(x) ? (x as Record<string, unknown>) : {};
}

/** `x` when it is a list, else an empty one. */
function list(x: unknown): unknown[] {
  return Array.isArray(x) ? x : [];
}

/** The strings of a list (anything else in it is the schema's to name). */
function strings(x: unknown): string[] {
  return list(x).filter((n): n is string => typeof n === "string");
}
