import * as v from "valibot";
import { ConfigError, type ConfigProblem } from "../config/errors.ts";
import { isFileReference, readCredential } from "../config/expand.ts";
import { PROVIDER_COMMON_KEYS, ProviderCommonSchema } from "../config/schema.ts";
import { issueMessage } from "../config/messages.ts";
import { editDistance, suggestKey, unknownKeys } from "../config/unknown-keys.ts";
import { PROVIDERS } from "./_registry.gen.ts";
import type { Provider, ProviderDefinition, ProviderDeps } from "./define.ts";

/** Settings every provider has (spec 2.4), validated. */
export type ProviderCommon = v.InferOutput<typeof ProviderCommonSchema>;

/** A configured provider: its definition, its constructed instance, its own options and the common settings. */
export interface ConfiguredProvider {
  readonly definition: ProviderDefinition;
  readonly provider: Provider;
  readonly options: Readonly<Record<string, unknown>>;
  readonly common: ProviderCommon;
}

/** Where problems are reported: the file name and the line of a dotted key. */
export interface ProblemSite {
  readonly file?: string;
  lineOf(key: string): number | undefined;
}

/**
 * Builds every provider under `alert:` (spec 2.4, 6 item 7) and reports every problem: an unknown provider,
 * options its schema rejects, credentials not given as `${file:/absolute/path}` or unreadable, a fallback
 * that names no other configured provider (errors); unknown option keys (warnings, with a suggestion).
 * Providers with an error are left out; startup refuses when any error is reported.
 */
export function buildProviders(
  alert: Readonly<Record<string, Readonly<Record<string, unknown>>>>,
  deps: ProviderDeps,
  site: ProblemSite,
): { providers: ConfiguredProvider[]; problems: ConfigProblem[] } {
  const providers: ConfiguredProvider[] = [];
  const problems: ConfigProblem[] = [];
  const add = (level: ConfigProblem["level"], rule: ConfigProblem["rule"], key: string, message: string) =>
    problems.push({
      level,
      rule,
      key,
      message,
      ...(site.file ? { file: site.file } : {}),
      ...((site.lineOf(key) ?? nearest(key, site)) ? { line: site.lineOf(key) ?? nearest(key, site) } : {}),
    });
  const names = Object.keys(alert).sort();

  for (const name of names) {
    const key = `alert.${name}`;
    const definition = PROVIDERS[name];
    if (!definition) {
      const hint = closestProvider(name);
      add(
        "error",
        "provider_unknown",
        key,
        `${key}: no provider named ${name}${hint ? ` (did you mean ${hint}?)` : ""}`,
      );
      continue;
    }
    const raw: Record<string, unknown> = { ...(alert[name] ?? {}) };
    const commonRaw: Record<string, unknown> = {};
    for (const k of PROVIDER_COMMON_KEYS) {
      if (k in raw) {
        commonRaw[k] = raw[k];
        delete raw[k];
      }
    }
    for (const unknown of unknownKeys(definition.options, raw)) {
      const hint = suggestKey(definition.options, unknown) ?? suggestKey(ProviderCommonSchema, unknown);
      add(
        "warning",
        "unknown_key",
        `${key}.${unknown}`,
        `unknown key ${key}.${unknown}${hint ? ` (did you mean ${hint}?)` : ""}`,
      );
    }
    let failed = false;
    for (const field of definition.credentials) {
      const value = raw[field];
      const full = `${key}.${field}`;
      const values =
        typeof value === "string"
          ? [[field, value] as const]
          : value && typeof value === "object"
            ? Object.entries(value as Record<string, unknown>).map(([k, x]) => [`${field}.${k}`, x] as const)
            : [];
      for (const [path, item] of values) {
        if (typeof item !== "string") continue;
        const itemKey = `${key}.${path}`;
        if (isFileReference(item)) {
          try {
            setPath(raw, path, readCredential(item, itemKey));
          } catch (error) {
            failed = true;
            add("error", (error as ConfigError).rule, itemKey, (error as ConfigError).problem.message);
          }
        } else if (!definition.credentialsMayBeInline?.includes(field)) {
          failed = true;
          add(
            "error",
            "credential_not_file_ref",
            itemKey,
            `${itemKey}: credentials must be given as \${file:/absolute/path} (a file mounted from a Secret)`,
          );
        }
      }
      if (values.length === 0 && value !== undefined)
        add("error", "provider_invalid", full, `${full}: must be a string`);
    }
    const common = v.safeParse(ProviderCommonSchema, commonRaw);
    if (!common.success) {
      failed = true;
      for (const issue of common.issues)
        add(
          "error",
          "provider_invalid",
          `${key}.${v.getDotPath(issue) ?? ""}`,
          `${key}.${v.getDotPath(issue) ?? ""}: ${issueMessage(issue)}`,
        );
    } else if (
      common.output.fallback !== undefined &&
      (common.output.fallback === name || !names.includes(common.output.fallback))
    ) {
      failed = true;
      add(
        "error",
        "provider_invalid",
        `${key}.fallback`,
        `${key}.fallback: ${common.output.fallback === name ? "a provider cannot be its own fallback" : `names ${common.output.fallback}, which is not configured under alert`}`,
      );
    }
    const parsed = v.safeParse(definition.options, raw);
    if (!parsed.success) {
      for (const issue of parsed.issues) {
        const path = v.getDotPath(issue);
        const full = path ? `${key}.${path}` : key;
        const secret = definition.credentials.some((c) => path === c || path?.startsWith(`${c}.`));
        add("error", "provider_invalid", full, `${full}: ${issueMessage(issue, secret)}`);
      }
      continue;
    }
    if (failed || !common.success) continue;
    try {
      const provider = definition.create(parsed.output as never, deps);
      providers.push({
        definition,
        provider,
        options: parsed.output as Record<string, unknown>,
        common: common.output,
      });
    } catch (error) {
      add("error", "provider_invalid", key, `${key}: cannot be constructed: ${(error as Error).message}`);
    }
  }
  return { providers, problems };
}

/** Throws ConfigError for the first error among `problems` (startup refuses, spec 7.2). */
export function refuseOnError(problems: readonly ConfigProblem[]): void {
  const error = problems.find((p) => p.level === "error");
  if (error) throw new ConfigError(error);
}

// --- internal ---

function setPath(target: Record<string, unknown>, path: string, value: string): void {
  const [head, tail] = path.split(".", 2) as [string, string | undefined];
  if (tail === undefined) target[head] = value;
  else target[head] = { ...(target[head] as Record<string, unknown>), [tail]: value };
}

function nearest(key: string, site: ProblemSite): number | undefined {
  const parts = key.split(".");
  for (let n = parts.length - 1; n > 0; n--) {
    const line = site.lineOf(parts.slice(0, n).join("."));
    if (line) return line;
  }
  return undefined;
}

function closestProvider(name: string): string | undefined {
  const lower = name.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const known of Object.keys(PROVIDERS)) {
    const distance = editDistance(lower, known.toLowerCase());
    if (distance <= 2 && (!best || distance < best.distance)) best = { name: known, distance };
  }
  return best?.name;
}
