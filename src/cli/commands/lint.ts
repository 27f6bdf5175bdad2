import { defineCommand } from "citty";
import { formatWarning } from "../../config/errors.ts";
import { loadConfig } from "../../config/load.ts";
import { buildProviders } from "../../providers/build.ts";
import { createHttpClient } from "../../providers/http.ts";
import { createLogger } from "../../runtime/logger.ts";
import { failStartup } from "../exit.ts";

/**
 * `mon lint` (spec 4.4): validates the configuration as startup would (schema, `${VAR}`, credentials as
 * `${file:}` references, providers constructible), prints warnings, and warns when no provider is configured.
 * `--strict` fails on unknown keys. Exit 0 when valid, 1 when startup would refuse.
 */
export default defineCommand({
  meta: { name: "lint", description: "Validate the configuration file (CONFIG_FILE or --config)." },
  args: {
    config: { type: "string", description: "Configuration file (default: CONFIG_FILE)" },
    strict: { type: "boolean", description: "Reject unknown keys", default: false },
  },
  run({ args }) {
    const logger = createLogger();
    try {
      const loaded = loadConfig({ env: process.env, path: args.config });
      const built = buildProviders(loaded.config.alert, { http: createHttpClient(), logger, clusterName: loaded.config.app.clusterName, stdout: () => {} }, { file: loaded.file, lineOf: loaded.lineOf });
      const warnings = [...loaded.warnings, ...built.warnings];
      for (const w of warnings) logger.warn(formatWarning(w));
      if (built.providers.length === 0) logger.warn("no alert provider is configured under alert:");
      if (args.strict && warnings.some((w) => w.message.startsWith("unknown key"))) {
        logger.error(`--strict: ${warnings.filter((w) => w.message.startsWith("unknown key")).length} unknown key(s)`);
        process.exit(1);
      }
      logger.success(`${loaded.file ?? "built-in defaults"}: valid (${built.providers.map((p) => p.definition.name).join(", ") || "no providers"})`);
    } catch (error) {
      failStartup(logger, error);
    }
  },
});
