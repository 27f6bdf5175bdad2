import type { LoadedConfig } from "../../config/load.ts";
import { silenceSources } from "../pass/rules.ts";
import { clusterUuid } from "../../kube/cluster-uuid.ts";
import type { KubeConnection } from "../../kube/connection.ts";
import { createLicenseClient } from "../../license/client.ts";
import { instanceSecretStore } from "../../license/instance-secret.ts";
import { trustedKeys } from "../../license/keys.ts";
import { createLicenseManager, type LicenseManager } from "../../license/manager.ts";
import type { Metrics } from "../../metrics.ts";
import type { Edition } from "../../model/edition.ts";
import type { HttpClient } from "../../outbound/client.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import { VERSION } from "../../version.ts";
import { createEditionControl, type EditionControl } from "./edition.ts";

/** What the license needs from the leader: the configuration, the API server, the outbound client, time, logs, metrics. */
export interface LicenseDeps {
  readonly loaded: LoadedConfig;
  readonly connection: KubeConnection;
  readonly http: HttpClient;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

/**
 * Builds the leader's license manager (docs/license.md) from the configuration: the key (`license.key`, or
 * MON_LICENSE_KEY which wins), {license_url} (MON_LICENSE_URL), the instance Secret in mon's namespace
 * (POD_NAMESPACE), the cluster UUID, and the keys this build trusts. Nothing is called until `start()`.
 */
export async function licenseFor(
  options: LicenseDeps & { onNotice(text: string): void; onEdition(edition: Edition): void },
): Promise<LicenseManager> {
  const key = options.loaded.config.license.key || undefined;
  const keys = trustedKeys();
  // The cluster UUID is read only when there is a key: without one, no license call is made at all.
  const uuid = key ? (await clusterUuid(options.connection)).uuid : "";
  return createLicenseManager({
    ...(key ? { key } : {}),
    client: createLicenseClient({
      url: options.loaded.runtime.endpoints.license,
      http: options.http,
      keys,
      clusterUuid: uuid,
      monVersion: VERSION,
    }),
    store: instanceSecretStore(options.connection, options.loaded.runtime.podNamespace),
    keys,
    clusterUuid: uuid,
    clock: options.clock,
    ...(options.clock.monotonic ? { monotonic: () => options.clock.monotonic?.() ?? 0 } : {}),
    logger: options.logger,
    metrics: options.metrics,
    onNotice: options.onNotice,
    onEdition: options.onEdition,
  });
}

/**
 * A running license manager and where its notices and edition changes go: handed from one leader's work to the
 * next when the configuration overlay restarts it in process, so the license is not activated again.
 */
export interface LicenseHandle {
  readonly manager: LicenseManager;
  /** Sends the manager's notices and edition changes to `control` from now on. */
  rebind(control: EditionControl): void;
}

/**
 * The edition as the license decides it (spec 1.10, 4.3), before the components are built: the edition control
 * and, unless `fixed` (unit-level tests of Pro behaviour), the started license manager. A binding restored from
 * the instance Secret is Pro from the start, without a transition to announce. With `carried` (an in-process
 * restart) the running manager is kept and only the control is new.
 */
export async function startEdition(
  options: LicenseDeps & {
    fixed?: Edition;
    carried?: LicenseHandle;
    /** The providers Community does not deliver to (the router, built later). */
    inactive: () => readonly string[];
  },
): Promise<{ control: EditionControl; license?: LicenseHandle }> {
  const { loaded, clock, logger } = options;
  const control = createEditionControl({
    initial: options.fixed ?? options.carried?.manager.edition() ?? "community",
    config: loaded.config,
    cluster: loaded.config.app.clusterName,
    clock,
    logger,
    inactive: options.inactive,
    silenceSources: silenceSources(loaded),
  });
  if (options.fixed) return { control };
  if (options.carried) {
    options.carried.rebind(control);
    return { control, license: options.carried };
  }
  let target = control;
  const manager = await licenseFor({
    ...options,
    onNotice: (text) => target.notice(text),
    onEdition: (next) => target.change(next),
  });
  await manager.start();
  control.change(manager.edition());
  return {
    control,
    license: {
      manager,
      rebind(next) {
        target = next;
      },
    },
  };
}
