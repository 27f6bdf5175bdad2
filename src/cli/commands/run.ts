import { defineCommand } from "citty";
import { startDaemon } from "../../app/daemon.ts";
import { CONFIG_DOMAIN } from "../../app/config-domain.ts";
import { formatProblem } from "../../config/errors.ts";
import { prepareStartup } from "../../app/prepare.ts";
import { type LoadedConfig, loadConfig } from "../../config/load.ts";
import { connectKube } from "../../kube/connection.ts";
import { createSystemClock } from "../../runtime/clock.ts";
import { createLogger } from "../../runtime/logger.ts";
import { onShutdownSignal } from "../../runtime/signals.ts";
import { failStartup } from "../exit.ts";

/** `mon run`: the daemon. Connects in-cluster, or with `--kubeconfig` / KUBECONFIG; configuration from CONFIG_FILE. */
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
      const connection = await connectKube({ kubeconfigPath: args.kubeconfig });
      const daemon = await startDaemon({ config, connection, clock: createSystemClock(), logger, prepared });
      onShutdownSignal(async (signal) => {
        logger.info(`${signal}: shutting down`);
        await daemon.stop(10_000);
        process.exit(0);
      });
    } catch (error) {
      failStartup(logger, error);
    }
  },
});
