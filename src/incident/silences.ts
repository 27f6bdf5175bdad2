import type { Finding } from "../model/finding.ts";
import type { SilenceRule } from "../model/rules.ts";

/** A silence rule ready for the pass: reasons lower-cased and pod name patterns compiled once. */
export interface PreparedSilence extends SilenceRule {
  readonly lowerReasons?: ReadonlySet<string>;
  readonly podNames?: readonly RegExp[];
}

/** Prepares one silence rule. Throws SyntaxError on a pod name pattern that is not a regular expression. */
export function prepareSilence(rule: SilenceRule): PreparedSilence {
  return {
    ...rule,
    ...(rule.reasons?.length ? { lowerReasons: new Set(rule.reasons.map((r) => r.toLowerCase())) } : {}),
    ...(rule.podNamePatterns?.length ? { podNames: rule.podNamePatterns.map((p) => new RegExp(p)) } : {}),
  };
}

/**
 * True when a silence rule matches the finding (spec 2.2): every field it sets matches; message matchers
 * search the summary and the evidence, Event messages included. Pure.
 */
export function silenced(rules: readonly PreparedSilence[], f: Finding): boolean {
  return silencedBy(rules, f) !== undefined;
}

/** The index of the first silence rule that matches the finding (see `silenced`), undefined when none does. */
export function silencedBy(rules: readonly PreparedSilence[], f: Finding): number | undefined {
  if (rules.length === 0) return undefined;
  const text = [f.summary, ...f.evidence.map((e) => e.value)].join("\n");
  const at = rules.findIndex((rule) => silences(rule, f, text));
  return at < 0 ? undefined : at;
}

// --- internal ---

function silences(rule: PreparedSilence, f: Finding, text: string): boolean {
  const checks: (boolean | undefined)[] = [
    rule.namespaces?.length
      ? f.object.namespace !== undefined && rule.namespaces.includes(f.object.namespace)
      : undefined,
    rule.lowerReasons ? rule.lowerReasons.has(f.reason.toLowerCase()) : undefined,
    rule.podNames ? f.object.kind === "Pod" && rule.podNames.some((p) => p.test(f.object.name)) : undefined,
    rule.containerNames?.length
      ? f.container !== undefined && rule.containerNames.includes(f.container.replace(/ \(init\)$/, ""))
      : undefined,
    rule.containerMessages?.length
      ? f.container !== undefined && rule.containerMessages.some((m) => text.includes(m))
      : undefined,
    rule.eventMessages?.length
      ? f.evidence.some((e) => e.label === "event") && rule.eventMessages.some((m) => text.includes(m))
      : undefined,
    rule.nodeReasons?.length
      ? f.object.kind === "Node" && rule.nodeReasons.some((r) => text.includes(r) || f.reason === r)
      : undefined,
    rule.nodeMessages?.length ? f.object.kind === "Node" && rule.nodeMessages.some((m) => text.includes(m)) : undefined,
  ];
  const set = checks.filter((c) => c !== undefined);
  return set.length > 0 && set.every(Boolean);
}
