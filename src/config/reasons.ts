import type { ProviderSettings } from "./alert.ts";
import type { Config } from "./schema.ts";
import { closestName } from "./unknown-keys.ts";

/**
 * Reason names the configuration mentions that no catalogue reason matches (spec 2.1 `reasons`, 2.2 silence
 * `reasons`, 2.4 route `reasons`, and the keys of `severityByReason`, `runbooks` and `templates`): each is a
 * warning with the closest reason, since such a name silently matches nothing. Names compare ignoring case and
 * a leading `!`. `known` is the catalogue's reason names.
 */
export function unknownReasonNames(
  config: Config,
  providers: readonly ProviderSettings[],
  known: readonly string[],
): { key: string; name: string; hint?: string }[] {
  const lower = new Set(known.map((r) => r.toLowerCase()));
  const mentioned: [string, readonly string[]][] = [
    ["reasons", config.reasons ?? []],
    ...config.silences.map((rule, i) => [`silences.${i}.reasons`, rule.reasons ?? []] as [string, string[]]),
    ["severityByReason", Object.keys(config.severityByReason ?? {})],
    ["runbooks", Object.keys(config.runbooks ?? {})],
    ["templates", Object.keys(config.templates ?? {})],
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
