/**
 * A Pro daemon in a process of its own, for tests that kill it (`src/e2e/restart.test.ts`): the outbox must
 * survive SIGKILL. Test harness only — `mon` itself has no way to choose the edition.
 * Usage: bun src/testing/daemon-process.ts <kubeconfig file> <config file> <data dir>
 */
import { readFileSync } from "node:fs";
import { startDaemon } from "../app/daemon.ts";
import { parseConfig } from "./config.ts";
import { connectKube } from "../kube/connection.ts";
import { createSystemClock } from "../runtime/clock.ts";
import { createLogger } from "../runtime/logger.ts";

const [kubeconfig, configFile, dataDir] = process.argv.slice(2);
if (!kubeconfig || !configFile || !dataDir)
  throw new Error("usage: daemon-process.ts <kubeconfig> <config> <data dir>");
const config = parseConfig(readFileSync(configFile, "utf8"), configFile, { MON_DATA_DIR: dataDir });
const connection = await connectKube({ kubeconfigPath: kubeconfig });
await startDaemon({ config, connection, clock: createSystemClock(), logger: createLogger(), edition: "pro" });
