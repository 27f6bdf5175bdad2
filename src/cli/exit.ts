import { ConfigError } from "../config/errors.ts";
import { KubeError } from "../kube/errors.ts";
import type { Logger } from "../runtime/logger.ts";
import { UserError } from "../runtime/user-error.ts";

/** Logs a startup failure as one clear line (spec 7.2) and exits non-zero; unexpected errors keep their stack. */
export function failStartup(logger: Logger, error: unknown): never {
  if (error instanceof ConfigError) logger.error(`configuration: ${error.message}`);
  else if (error instanceof KubeError) logger.error(`kubernetes: ${error.message}`);
  else if (error instanceof UserError) logger.error(error.message);
  else logger.error(error);
  process.exit(1);
}
