import { defineCommand } from "citty";
import { type Daemon, startDaemon } from "../../app/daemon.ts";
import { electorFor } from "../../app/replica/leadership.ts";
import { CONFIG_DOMAIN } from "../../config-domain.ts";
import { formatProblem } from "../../config/errors.ts";
import { prepareStartup } from "../../app/delivery/prepare.ts";
import { type LoadedConfig, loadConfig } from "../../config/load.ts";
import { connectKube } from "../../kube/connection.ts";
import { createSystemClock } from "../../runtime/clock.ts";
import { createLogger } from "../../runtime/logger.ts";
import { onShutdownSignal } from "../../runtime/signals.ts";
import { settlesWithin } from "../../runtime/waiters.ts";
import { failStartup } from "../exit.ts";

/**
 * How long a SIGTERM'd leader flushes its outbox before it persists the rest and releases the Lease, ms:
 * within Kubernetes' default 30 s termination grace period, with room for the release and the exit.
 */
const SHUTDOWN_DRAIN_MS = 10_000;

/** `mon run`: the daemon. Connects in-cluster, or with `--kubeconfig` / KUBECONFIG; configuration from CONFIG_FILE. */
/** How long a process ending on a fatal failure delivers what is queued, ms (the notices closing blind threads). */
const FATAL_DRAIN_MS = 5_000;

export default defineCommand({
  meta: { name: "run", description: "Watch the cluster and deliver incidents (the daemon)." },
  args: {
    kubeconfig: {
      type: "string",
      description: "Path to a kubeconfig (default: in-cluster, then KUBECONFIG, then ~/.kube/config)",
    },
    config: { type: "string", description: "Configuration file (default: CONFIG_FILE)" },
  },
  async run({ args }) {
    const early = createLogger();
    let config: LoadedConfig;
    try {
      config = loadConfig({ env: process.env, path: args.config, domain: CONFIG_DOMAIN });
    } catch (error) {
      failStartup(early, error);
    }
    const logger = createLogger({ format: config.config.app.logFormatter });
    // Warnings first, before anything can fail: a typo is the first thing to read when mon does not behave.
    for (const w of config.warnings) logger.warn(formatProblem(w));
    try {
      const prepared = prepareStartup(config, { logger });
      const connection = await connectKube({ kubeconfigPath: args.kubeconfig, log: (line) => logger.warn(line) });
      const clock = createSystemClock();
      let daemon: Daemon | undefined;
      // A leader that cannot renew stops deciding and sending at once and stands by, campaigning again (issue
      // 53): an API server outage is no reason to exit, a fresh process would see the same.
      const elector = electorFor({
        runtime: config.runtime,
        connection,
        clock,
        logger,
        onLost: () => {
          if (daemon) return daemon.leadershipLost();
          logger.error("leadership_lost before the daemon started: exiting");
          process.exit(1);
        },
      });
      onShutdownSignal(async (signal) => {
        logger.info(`${signal}: shutting down`);
        // A standby has nothing to flush; a leader drains, persists the rest and releases the Lease.
        if (daemon) await daemon.stop(SHUTDOWN_DRAIN_MS);
        else elector?.stop();
        process.exit(0);
      });
      daemon = await startDaemon({
        config,
        connection,
        clock,
        logger,
        prepared,
        ...(elector ? { elector } : {}),
        // Spec 3.3: a required failure that does not heal stops the process, so Kubernetes restarts it.
        onFatal: (component, reason) => {
          logger.error(`${component} failed (${reason}) for 5 minutes: exiting so that the pod is restarted`);
          // What is queued goes out first, within the bound: the notice that closes a blind thread among it.
          void settlesWithin(clock, daemon?.stop(FATAL_DRAIN_MS) ?? Promise.resolve(), 10_000).then(() =>
            process.exit(1),
          );
        },
      });
    } catch (error) {
      failStartup(logger, error);
    }
  },
});
