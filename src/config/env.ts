import { endpointsFrom } from "../outbound/endpoints.ts";
import { hostname } from "node:os";
import type { ConfigProblem } from "./errors.ts";

/** What the environment variables of spec 8 say, parsed. Booleans are undefined when unset (or empty). */
export interface RuntimeEnv {
  readonly configFile?: string;
  readonly watchSecrets?: boolean;
  readonly crdEnabled?: boolean;
  readonly telemetry?: boolean;
  readonly licenseKey?: string;
  readonly skipUpgradeCheck: boolean;
  /** True in CI environments: telemetry is never sent. */
  readonly ci: boolean;
  readonly dataDir: string;
  /** MON_VOLUME_LIMIT in bytes. */
  readonly volumeLimitBytes?: number;
  /** MON_MEMORY_LIMIT in bytes; the soft limit is 90 % of it. */
  readonly memoryLimitBytes?: number;
  /** The soft memory limit, bytes: GOMEMLIMIT when set (it wins, spec 8), else 90 % of MON_MEMORY_LIMIT. */
  readonly softMemoryLimitBytes?: number;
  readonly installationId?: string;
  /** The state-lock Lease name: MON_LEADER_ELECTION_NAME, else `<MON_INSTALLATION_ID>-leader`. */
  readonly leaseName?: string;
  /** Lock identity: POD_NAME, else the host name. */
  readonly podName: string;
  readonly podNamespace: string;
  readonly podUid?: string;
  readonly nodeName?: string;
  /** MON_LICENSE_URL, MON_TELEMETRY_URL, MON_UPDATE_URL, else the defaults (outbound/endpoints.ts). */
  readonly endpoints: { readonly license: string; readonly telemetry: string; readonly update: string };
}

const TRUE = new Set(["true", "1", "on", "yes"]);
const FALSE = new Set(["false", "0", "off", "no"]);

/**
 * Parses a boolean environment value with the grammar of spec 7.2: true/false, 1/0, on/off, yes/no in any
 * letter case; empty or unset is undefined; anything else is `invalid`.
 */
export function parseBool(value: string | undefined): boolean | undefined | "invalid" {
  if (value === undefined || value.trim() === "") return undefined;
  const lower = value.trim().toLowerCase();
  if (TRUE.has(lower)) return true;
  if (FALSE.has(lower)) return false;
  return "invalid";
}

const SUFFIX: Readonly<Record<string, number>> = {
  "": 1,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** Parses a Kubernetes quantity (`2Gi`, `500M`, `1e9`, `1.5Ti`) to a number; undefined when it is not one. */
export function parseQuantity(text: string): number | undefined {
  const match = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E))?$/.exec(text.trim());
  if (!match) return undefined;
  const base = Number(match[1]);
  if (match[2]) return base * 10 ** Number(match[2].slice(1));
  return base * (SUFFIX[match[3] ?? ""] ?? 1);
}

/**
 * Reads the environment variables of spec 8. Problems follow spec 7.2: an unrecognized boolean in
 * MON_WATCH_SECRETS, MON_CRD_ENABLED or MON_TELEMETRY, an unreadable MON_VOLUME_LIMIT, a MON_MEMORY_LIMIT that
 * is not a positive number, and POD_NAME without MON_LEADER_ELECTION_NAME or MON_INSTALLATION_ID are errors;
 * SKIP_UPGRADE_CHECK with other text is a warning and ignored.
 */
export function readEnvironment(env: Readonly<Record<string, string | undefined>>): {
  runtime: RuntimeEnv;
  problems: ConfigProblem[];
} {
  const problems: ConfigProblem[] = [];
  const error = (key: string, message: string) =>
    problems.push({ level: "error", rule: "invalid_env", key, message: `${key}: ${message}` });
  const bool = (key: string): boolean | undefined => {
    const parsed = parseBool(env[key]);
    if (parsed === "invalid") {
      error(key, `"${env[key]}" is not a boolean (true/false, 1/0, on/off, yes/no)`);
      return undefined;
    }
    return parsed;
  };
  const watchSecrets = bool("MON_WATCH_SECRETS");
  const crdEnabled = bool("MON_CRD_ENABLED");
  const telemetry = bool("MON_TELEMETRY");
  let skipUpgradeCheck = false;
  const skip = parseBool(env.SKIP_UPGRADE_CHECK);
  if (skip === "invalid") {
    problems.push({
      level: "warning",
      rule: "invalid_env",
      key: "SKIP_UPGRADE_CHECK",
      message: `SKIP_UPGRADE_CHECK: "${env.SKIP_UPGRADE_CHECK}" is not a boolean; ignored`,
    });
  } else skipUpgradeCheck = skip === true;
  const ciValue = (env.CI ?? "").trim().toLowerCase();
  const ci = ciValue !== "" && !["false", "0", "no", "off"].includes(ciValue);

  let volumeLimitBytes: number | undefined;
  if (env.MON_VOLUME_LIMIT?.trim()) {
    volumeLimitBytes = parseQuantity(env.MON_VOLUME_LIMIT);
    if (volumeLimitBytes === undefined || volumeLimitBytes <= 0)
      error("MON_VOLUME_LIMIT", `"${env.MON_VOLUME_LIMIT}" is not a Kubernetes quantity such as 2Gi`);
  }
  let memoryLimitBytes: number | undefined;
  if (env.MON_MEMORY_LIMIT?.trim()) {
    const n = Number(env.MON_MEMORY_LIMIT.trim());
    if (!Number.isFinite(n) || n <= 0)
      error("MON_MEMORY_LIMIT", `"${env.MON_MEMORY_LIMIT}" is not a positive number of bytes`);
    else memoryLimitBytes = n;
  }
  let softMemoryLimitBytes = memoryLimitBytes !== undefined ? Math.floor(memoryLimitBytes * 0.9) : undefined;
  const goMemLimit = env.GOMEMLIMIT?.trim();
  if (goMemLimit && goMemLimit !== "off") {
    const parsed = parseGoBytes(goMemLimit);
    if (parsed === undefined) error("GOMEMLIMIT", `"${goMemLimit}" is not a byte count such as 900MiB`);
    else softMemoryLimitBytes = parsed;
  }
  const installationId = env.MON_INSTALLATION_ID?.trim() || undefined;
  const electionName = env.MON_LEADER_ELECTION_NAME?.trim() || undefined;
  const podName = env.POD_NAME?.trim() || undefined;
  if (podName && !electionName && !installationId)
    error("POD_NAME", "is set but neither MON_LEADER_ELECTION_NAME nor MON_INSTALLATION_ID names the state-lock Lease");

  const runtime: RuntimeEnv = {
    ...(env.CONFIG_FILE ? { configFile: env.CONFIG_FILE } : {}),
    ...(watchSecrets !== undefined ? { watchSecrets } : {}),
    ...(crdEnabled !== undefined ? { crdEnabled } : {}),
    ...(telemetry !== undefined ? { telemetry } : {}),
    ...(env.MON_LICENSE_KEY ? { licenseKey: env.MON_LICENSE_KEY } : {}),
    skipUpgradeCheck,
    ci,
    dataDir: env.MON_DATA_DIR?.trim() || "/var/lib/mon",
    ...(volumeLimitBytes !== undefined ? { volumeLimitBytes } : {}),
    ...(memoryLimitBytes !== undefined ? { memoryLimitBytes } : {}),
    ...(softMemoryLimitBytes !== undefined ? { softMemoryLimitBytes } : {}),
    ...(installationId ? { installationId } : {}),
    ...(electionName ? { leaseName: electionName } : installationId ? { leaseName: `${installationId}-leader` } : {}),
    podName: podName ?? hostname(),
    podNamespace: env.POD_NAMESPACE?.trim() || "mon",
    endpoints: endpointsFrom(env),
    ...(env.POD_UID ? { podUid: env.POD_UID } : {}),
    ...(env.NODE_NAME ? { nodeName: env.NODE_NAME } : {}),
  };
  return { runtime, problems };
}

const GO_UNITS: Readonly<Record<string, number>> = {
  "": 1,
  B: 1,
  KiB: 2 ** 10,
  MiB: 2 ** 20,
  GiB: 2 ** 30,
  TiB: 2 ** 40,
};

/** A byte count in Go's GOMEMLIMIT syntax (an integer with an optional B, KiB, MiB, GiB or TiB suffix). */
function parseGoBytes(text: string): number | undefined {
  const m = /^(\d+)(B|KiB|MiB|GiB|TiB)?$/.exec(text);
  if (!m) return undefined;
  const bytes = Number(m[1]) * (GO_UNITS[m[2] ?? ""] ?? 1);
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : undefined;
}
