import * as v from "valibot";
import { ConfigError } from "../config/errors.ts";
import { isFileReference, readCredential } from "../config/expand.ts";
import { editDistance, suggestKey, unknownKeys } from "../config/unknown-keys.ts";
import type { ConfigWarning } from "../config/errors.ts";
import { PROVIDERS } from "./_registry.gen.ts";
import type { Provider, ProviderDefinition, ProviderDeps } from "./define.ts";

/** A configured provider: its definition, its constructed instance and its resolved options. */
export interface ConfiguredProvider {
  readonly definition: ProviderDefinition;
  readonly provider: Provider;
  readonly options: Readonly<Record<string, unknown>>;
}

/**
 * Builds every provider under `alert:` (spec 2.4, 6 item 7): validates its options with the provider's own
 * schema, requires credentials as `${file:/absolute/path}` and reads them, then constructs it.
 * Throws ConfigError (a provider that cannot be constructed refuses startup and fails `mon lint`).
 * Unknown option keys become warnings with a suggestion.
 */
export function buildProviders(
  alert: Readonly<Record<string, Readonly<Record<string, unknown>>>>,
  deps: ProviderDeps,
  where: { file?: string; lineOf: (key: string) => number | undefined },
): { providers: ConfiguredProvider[]; warnings: ConfigWarning[] } {
  const providers: ConfiguredProvider[] = [];
  const warnings: ConfigWarning[] = [];
  for (const name of Object.keys(alert).sort()) {
    const key = `alert.${name}`;
    const definition = PROVIDERS[name];
    if (!definition) {
      const hint = closestProvider(name);
      throw new ConfigError("provider_unknown", key, `no provider named ${name}${hint ? ` (did you mean ${hint}?)` : ""}`, where.file, where.lineOf(key));
    }
    const raw = { ...(alert[name] ?? {}) };
    for (const unknown of unknownKeys(definition.options, raw)) {
      const hint = suggestKey(definition.options, unknown);
      const full = `${key}.${unknown}`;
      warnings.push({ key: full, message: `unknown key ${full}${hint ? ` (did you mean ${hint}?)` : ""}`, file: where.file, line: where.lineOf(full) });
    }
    for (const field of definition.credentials) {
      const value = raw[field];
      if (typeof value !== "string") continue;
      const full = `${key}.${field}`;
      if (isFileReference(value)) {
        try {
          raw[field] = readCredential(value, full);
        } catch (error) {
          if (error instanceof ConfigError) throw new ConfigError(error.rule, full, error.detail, where.file, where.lineOf(full));
          throw error;
        }
      } else if (!definition.credentialsMayBeInline?.includes(field)) {
        throw new ConfigError("credential_not_file_ref", full, "credentials must be given as ${file:/absolute/path} (a file mounted from a Secret)", where.file, where.lineOf(full));
      }
    }
    const parsed = v.safeParse(definition.options, raw);
    if (!parsed.success) {
      const issue = parsed.issues[0];
      const path = v.getDotPath(issue);
      const full = path ? `${key}.${path}` : key;
      throw new ConfigError("provider_invalid", full, issue.message.replace(/^Invalid (type|value): /, ""), where.file, where.lineOf(full));
    }
    try {
      const provider = definition.create(parsed.output as never, deps);
      providers.push({ definition, provider, options: parsed.output as Record<string, unknown> });
    } catch (error) {
      throw new ConfigError("provider_invalid", key, (error as Error).message, where.file, where.lineOf(key));
    }
  }
  return { providers, warnings };
}

// --- internal ---

function closestProvider(name: string): string | undefined {
  const lower = name.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const known of Object.keys(PROVIDERS)) {
    const distance = editDistance(lower, known.toLowerCase());
    if (distance <= 2 && (!best || distance < best.distance)) best = { name: known, distance };
  }
  return best?.name;
}
