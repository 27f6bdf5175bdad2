import type { ProviderCommon, ProviderSettings } from "../../config/alert.ts";
import { ConfigError, type ConfigProblem } from "../../config/errors.ts";
import { PROVIDERS } from "../_registry.gen.ts";
import type { Provider, ProviderDefinition, ProviderDeps } from "./define.ts";
import { bodyLimitOf, limitedHttp } from "./limits.ts";

export type { ProviderCommon };

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
 * Constructs every configured provider (spec 6 item 7) from settings the configuration pipeline validated
 * (config/alert.ts). A provider whose `create` throws (inconsistent options) is left out and reported as an
 * error naming its key and line; startup refuses when any error is reported (`refuseOnError`).
 */
export function buildProviders(
  settings: readonly ProviderSettings[],
  deps: ProviderDeps,
  site: ProblemSite,
): { providers: ConfiguredProvider[]; problems: ConfigProblem[] } {
  const providers: ConfiguredProvider[] = [];
  const problems: ConfigProblem[] = [];
  for (const { name, common, options } of settings) {
    const definition = PROVIDERS[name];
    const key = `alert.${name}`;
    if (!definition) continue;
    try {
      const provider = createProvider(definition, options, deps);
      providers.push({ definition, provider, options, common });
    } catch (error) {
      const line = site.lineOf(key);
      problems.push({
        level: "error",
        rule: "provider_invalid",
        key,
        message: `${key}: cannot be constructed: ${(error as Error).message}`,
        ...(site.file ? { file: site.file } : {}),
        ...(line ? { line } : {}),
      });
    }
  }
  return { providers, problems };
}

/**
 * Constructs one provider with an outbound client that never sends a body over the provider's limit
 * (limits.ts): a larger request is answered 413 without leaving mon. Throws what `create` throws.
 */
export function createProvider(
  definition: Pick<ProviderDefinition, "name" | "create">,
  options: Readonly<Record<string, unknown>>,
  deps: ProviderDeps,
): Provider {
  const limit = bodyLimitOf(definition.name, options);
  const http = limit === undefined ? deps.http : limitedHttp(deps.http, definition.name, limit);
  return definition.create(options as never, { ...deps, http });
}

/** Throws ConfigError for the first error among `problems` (startup refuses, spec 7.2). */
export function refuseOnError(problems: readonly ConfigProblem[]): void {
  const error = problems.find((p) => p.level === "error");
  if (error) throw new ConfigError(error);
}
