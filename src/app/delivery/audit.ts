import { isAbsolute, resolve } from "node:path";
import { cwd } from "node:process";
import { createAuditLog } from "../../audit/log.ts";
import type { LoadedConfig } from "../../config/load.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { DaemonOptions } from "../daemon-options.ts";
import type { Observers } from "./observe.ts";

/** The audit log (Pro, spec 2.1): one JSON entry per incident decision, written while the edition is Pro. */
export function auditFor(config: LoadedConfig["config"], options: DaemonOptions, observe: Observers, logger: Logger) {
  if (!config.auditLog.enabled) return undefined;
  const written = config.auditLog.output;
  // A relative path is the working directory's (spec 2.1 allows any file path), and the log says so once.
  const output = written === "stdout" || isAbsolute(written) ? written : resolve(cwd(), written);
  if (output !== written)
    logger.info(
      `audit log: ${output} (auditLog.output "${written}" is relative: resolved against the working directory)`,
    );
  return createAuditLog({
    output,
    stdout: options.stdout ?? ((t) => process.stdout.write(t)),
    hooks: { dropped: (count, why, error) => observe.auditDropped(count, why, output, error) },
  });
}
