import type { LoadedConfig } from "../config/load.ts";
import type { HealthRegistry } from "../health/registry.ts";
import type { Metrics } from "../metrics.ts";
import type { DaemonOptions } from "./daemon-options.ts";
import { startLeader } from "./leader.ts";
import type { Carried, Leader } from "./leader-types.ts";
import { type Prepared, prepareStartup } from "./delivery/prepare.ts";
import type { ReplicaWatch } from "./replica/watch.ts";
import { latestAbsence } from "../model/absence.ts";
import { createOutageVoice, failingReadiness, outageDelivery, outageSuppression } from "./replica/outage.ts";

/** How long a leader's work delivers what is queued before an in-process restart hands the rest over, ms. */
const RECONFIGURE_DRAIN_MS = 2_000;

/** The leader's work of this replica and the configuration it runs with. */
export interface Work {
  /** The configuration in effect. */
  config(): LoadedConfig;
  /** Takes the configuration the overlay merged at startup (the providers are built anew when it differs). */
  adopt(initial: LoadedConfig): void;
  /**
   * Starts the leader's work (this replica holds the state lock under `holds`, when there is a lock), from
   * `carried` when this replica keeps what its previous term left (issue 53), else from the state store.
   */
  lead(holds?: () => boolean, carried?: Carried): Promise<void>;
  /**
   * Stops the leader's work at once, the state lock lost (issue 53): returns what it kept, for the next term.
   * Until it leads again this replica tells an API server outage if it held the lock last (replica/outage.ts).
   */
  depose(): Carried | undefined;
  /**
   * The end of the process: the leader's work finishes (delivery drained for up to `drainMs`), or what a deposed
   * term kept is closed; an API server outage told is resolved as mon stopping.
   */
  finish(drainMs: number, deposed?: Carried): Promise<void>;
  /** The leader's work, undefined before it leads and while it is handed over. */
  current(): Leader | undefined;
  /** The leader's work; throws Error before this replica leads. */
  running(): Leader;
  /**
   * The in-process restart of a configuration change (the overlay, spec 2.5): the leader's work hands over its
   * state, incidents and license; the informers are rebuilt only when what they watch changed; the providers
   * and the leader's work are built anew from `next`. Health, metrics, the state lock and the process stay.
   */
  reconfigure(next: LoadedConfig): Promise<void>;
}

/** Builds the holder of the leader's work: nothing runs until `lead()`. */
export function createWork(
  options: DaemonOptions,
  deps: { metrics: Metrics; health: HealthRegistry; watch: ReplicaWatch },
): Work {
  const { clock, logger, connection } = options;
  const { watch } = deps;
  const prepare = (config: LoadedConfig) => prepareStartup(config, { logger, clock, stdout: options.stdout });
  const closeProviders = (p: Prepared | undefined) => {
    for (const c of p?.providers ?? []) c.provider.close?.();
  };
  let loaded = options.config;
  let prepared: Prepared | undefined = options.prepared;
  let leader: Leader | undefined;
  let lead: Leader | undefined;
  let holds: (() => boolean) | undefined;
  const voice = options.elector
    ? createOutageVoice({
        ...{ elector: options.elector, clock, logger, cluster: () => loaded.config.app.clusterName },
        readiness: () => failingReadiness(connection, clock),
        suppressed: outageSuppression(
          () => loaded,
          () => watch.inventory(),
          clock,
        ),
        ...outageDelivery({
          ...{ clock, logger, metrics: deps.metrics, health: deps.health, config: () => loaded },
          prepared: () => prepared ?? (prepared = prepare(loaded)),
        }),
      })
    : undefined;
  // The outage told while deposed is resolved as the next term begins; its delivery does not hold that up.
  const VOICE_DRAIN_MS = 10_000;
  const start = async (carried?: Carried) => {
    const warm = watch.failingAtSync();
    leader = await startLeader({
      daemon: { ...options, config: loaded },
      connection,
      clock,
      logger,
      metrics: deps.metrics,
      health: deps.health,
      prepared: prepared ?? (prepared = prepare(loaded)),
      inventory: watch.inventory(),
      synced: () => watch.requiredSynced(),
      ...(holds ? { holds } : {}),
      ...(carried ? { carried } : {}),
      // Synced once before it led (a blind spot since or not), it watched what began meanwhile: news.
      ...(warm ? { failingAtSync: warm } : {}),
      controlPlaneAway: () => latestAbsence(options.elector?.away(), watch.lastBlind()),
    });
    lead = leader;
    if (watch.requiredSynced()) leader.begin();
  };
  return {
    config: () => loaded,
    adopt(initial) {
      if (prepared && initial === options.config) return;
      closeProviders(prepared);
      loaded = initial;
      prepared = prepare(initial);
    },
    async lead(fencing, carried) {
      holds = fencing;
      void voice?.close(VOICE_DRAIN_MS);
      await start(carried);
      // Ready (spec 4.1) once the work restored its state, not when the Lease was acquired.
      if (options.elector) deps.health.set("leadership", "ok", { required: true });
    },
    depose() {
      const edition = leader?.edition();
      const carried = leader?.depose();
      leader = lead = undefined;
      if (edition) voice?.deposed(edition);
      return carried;
    },
    async finish(drainMs, deposed) {
      await Promise.all([lead?.finish(drainMs) ?? deposed?.state.close(), voice?.close(drainMs, true)]);
    },
    current: () => lead,
    running() {
      if (!leader) throw new Error("the daemon does not lead yet");
      return leader;
    },
    async reconfigure(next) {
      const previous = loaded;
      loaded = next;
      const carried = await leader?.handOver(RECONFIGURE_DRAIN_MS);
      lead = undefined;
      watch.rewatch(previous.config, next.config);
      if (!carried) closeProviders(prepared);
      prepared = prepare(next);
      // A standby only takes the configuration: its leader's work is built from it when it leads.
      if (!carried) return;
      await start(carried);
      logger.info("configuration applied");
    },
  };
}
