import { accessSync, constants, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { StateStore } from "../state/store.ts";

/** Where telemetry keeps its once-per-7-days mark and the cluster UUID: one key read and written. */
export type TelemetryStore = Pick<StateStore, "get" | "set">;

/** The mark's file beside a Community install's data (Pro keeps it in the state file). */
export const TELEMETRY_FILE = "telemetry.json";

/**
 * The state store telemetry uses (spec 8: installs without a state store send none; docs/telemetry.md): Pro's
 * state file when it is open; else, in Community, `<dataDir>/telemetry.json` when the data directory
 * (MON_DATA_DIR, default /var/lib/mon) can be created and written — Community keeps its incidents in memory,
 * but this one mark survives restarts there. Undefined when neither exists (a read-only root filesystem and
 * no volume). Does file I/O once, to find out.
 */
export function telemetryStore(state: StateStore, dataDir: string): TelemetryStore | undefined {
  if (state.persistent) return state;
  try {
    mkdirSync(dataDir, { recursive: true });
    accessSync(dataDir, constants.W_OK);
  } catch {
    return undefined;
  }
  const path = join(dataDir, TELEMETRY_FILE);
  const values = (): Record<string, unknown> => {
    try {
      return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
      throw error;
    }
  };
  return {
    get: async (key) => values()[key],
    async set(key, value) {
      try {
        // Written whole and renamed into place: a kill mid-write leaves the old mark, never half a file.
        writeFileSync(`${path}.tmp`, JSON.stringify({ ...values(), [key]: value }));
        renameSync(`${path}.tmp`, path);
        return true;
      } catch {
        return false;
      }
    },
  };
}
