import type { LoadedConfig } from "../config/load.ts";
import { createOutboundClient } from "../outbound/client.ts";
import type { HttpClient } from "../outbound/client.ts";
import { buildProviders, refuseOnError, type ConfiguredProvider } from "../providers/build.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import { VERSION } from "../version.ts";
import type { ConfigProblem } from "../config/errors.ts";

/** What startup builds from the configuration before it touches the cluster. */
export interface Prepared {
  readonly http: HttpClient;
  readonly providers: readonly ConfiguredProvider[];
  /** Provider warnings (unknown option keys) to log once. */
  readonly warnings: readonly ConfigProblem[];
}

/**
 * Builds the outbound HTTP client (app.proxyURL, app.caBundlePath, app.insecureSkipTLSVerify) and every
 * configured provider. Throws ConfigError when a provider cannot be constructed (spec 6 item 7, 7.2), so
 * `mon run` refuses before it connects to the cluster.
 */
export function prepareStartup(
  loaded: LoadedConfig,
  options: { logger: Logger; stdout?: (text: string) => void; clock?: Clock },
): Prepared {
  const config = loaded.config;
  const http = createOutboundClient({
    userAgent: `mon/${VERSION}`,
    ...(config.app.proxyURL ? { proxyUrl: config.app.proxyURL } : {}),
    ...(loaded.caBundle ? { caBundle: loaded.caBundle } : {}),
    insecureSkipTLSVerify: config.app.insecureSkipTLSVerify,
  });
  const built = buildProviders(
    config.alert,
    {
      http,
      logger: options.logger,
      clusterName: config.app.clusterName,
      stdout: options.stdout ?? ((t) => process.stdout.write(t)),
      ...(options.clock ? { clock: options.clock } : {}),
    },
    { ...(loaded.file ? { file: loaded.file } : {}), lineOf: loaded.lineOf },
  );
  refuseOnError(built.problems);
  return { http, providers: built.providers, warnings: built.problems };
}
