import type { ConfigProblem } from "../../config/errors.ts";
import type { ConfigCheck, LoadedConfig } from "../../config/load.ts";
import { createOutboundClient, type HttpClient } from "../../outbound/client.ts";
import { buildProviders, type ConfiguredProvider, refuseOnError } from "../../providers/_kit/build.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import { VERSION } from "../../version.ts";

/** What startup builds from the configuration before it touches the cluster. */
export interface Prepared {
  readonly http: HttpClient;
  readonly providers: readonly ConfiguredProvider[];
  /** Problems found while constructing providers (errors refuse startup). */
  readonly problems: readonly ConfigProblem[];
}

/**
 * Builds the outbound HTTP client (app.proxyURL, app.caBundlePath, app.insecureSkipTLSVerify) and every
 * configured provider; never throws. Shared by `mon run` (through prepareStartup) and `mon lint`, which reports
 * the problems of a configuration that has other errors too (`config` absent: defaults for the client).
 */
export function prepareProviders(
  source: Pick<ConfigCheck, "config" | "providers" | "caBundle" | "file" | "lineOf">,
  options: { logger: Logger; stdout?: (text: string) => void; clock?: Clock },
): Prepared {
  const app = source.config?.app;
  const http = createOutboundClient({
    userAgent: `mon/${VERSION}`,
    ...(app?.proxyURL ? { proxyUrl: app.proxyURL } : {}),
    ...(source.caBundle ? { caBundle: source.caBundle } : {}),
    insecureSkipTLSVerify: app?.insecureSkipTLSVerify ?? false,
  });
  const built = buildProviders(
    source.providers,
    {
      http,
      logger: options.logger,
      clusterName: app?.clusterName ?? "",
      stdout: options.stdout ?? ((t) => process.stdout.write(t)),
      ...(options.clock ? { clock: options.clock } : {}),
    },
    { ...(source.file ? { file: source.file } : {}), lineOf: source.lineOf },
  );
  return { http, providers: built.providers, problems: built.problems };
}

/**
 * prepareProviders for `mon run`: throws ConfigError when a provider cannot be constructed (spec 6 item 7,
 * 7.2), so startup refuses before it connects to the cluster.
 */
export function prepareStartup(
  loaded: LoadedConfig,
  options: { logger: Logger; stdout?: (text: string) => void; clock?: Clock },
): Prepared {
  const prepared = prepareProviders(loaded, options);
  refuseOnError(prepared.problems);
  return prepared;
}
