/**
 * Where mon's own calls go (spec 4.3): {license_url}, {telemetry_url} and the update check. Each can be
 * pointed elsewhere — a vendor-approved relay, a test server — with MON_LICENSE_URL, MON_TELEMETRY_URL and
 * MON_UPDATE_URL; license answers are still verified against the keys compiled into the binary.
 */
export const DEFAULT_ENDPOINTS = {
  license: "https://license.mon.io",
  telemetry: "https://telemetry.mon.io",
  update: "https://updates.mon.io",
} as const;

/** The endpoints in effect: the environment's, else the defaults. */
export function endpointsFrom(env: Readonly<Record<string, string | undefined>>): {
  license: string;
  telemetry: string;
  update: string;
} {
  return {
    license: env.MON_LICENSE_URL?.trim() || DEFAULT_ENDPOINTS.license,
    telemetry: env.MON_TELEMETRY_URL?.trim() || DEFAULT_ENDPOINTS.telemetry,
    update: env.MON_UPDATE_URL?.trim() || DEFAULT_ENDPOINTS.update,
  };
}
