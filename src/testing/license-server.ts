import { createPrivateKey, randomUUID, sign } from "node:crypto";
import type { LeasePayload } from "../license/lease.ts";
import { type CaptureServer, startCaptureServer } from "./capture-server.ts";

/**
 * The test license server's Ed25519 private key (PKCS#8, base64). Its public key is compiled into mon as the
 * test key (src/license/keys.ts), which only development builds trust: a release binary ignores this server.
 */
const TEST_PRIVATE_KEY = "MC4CAQAwBQYDK2VwBCIEIAxw4E9IbPURNhwJi43YKQlZPT7YXg5QmszsQQyfGMfD";

const DAY_S = 86_400;

/** One license the server knows. Times are Unix seconds. */
interface License {
  readonly id: string;
  expiresAt: number;
  revoked: boolean;
  /** The cluster it is bound to, once activated. */
  cluster?: string;
  instanceKey?: string;
}

/**
 * A license server for tests and local trials (docs/license.md "Protocol"), on loopback: it issues 3-day
 * leases signed with the test key, binds a license to the first cluster that activates it, and can be told to
 * revoke, to go offline (HTTP 503, unsigned), or to sign with a key mon does not trust (a forged server).
 */
export interface LicenseServer {
  readonly url: string;
  readonly http: CaptureServer;
  /** Adds a license; returns its key. `expiresInDays` is the license's own end (default a year). */
  addLicense(options?: { expiresInDays?: number }): string;
  revoke(key: string): void;
  /** Makes the server unreachable (503 without a signed answer) or reachable again. */
  setOffline(offline: boolean): void;
  /** Signs answers with a key mon does not trust. */
  setForged(forged: boolean): void;
  /** The calls received, by path (`/v1/activate`, `/v1/renew`, `/v1/release`). */
  calls(path?: string): number;
  close(): Promise<void>;
}

/**
 * Starts the test license server; `now` (epoch ms) is its clock — the test's fake clock. `host`: the local address
 * it listens on (127.0.0.1; the real node's bridge for mon's pods).
 */
export async function startLicenseServer(now: () => number, host?: string): Promise<LicenseServer> {
  const http = await startCaptureServer(host);
  const key = createPrivateKey({ key: Buffer.from(TEST_PRIVATE_KEY, "base64"), format: "der", type: "pkcs8" });
  const forgedKey = createPrivateKey({
    key: Buffer.from("MC4CAQAwBQYDK2VwBCIEIKd5xFfWSHRlbmkYNRcY/7FC5Ptqz82+IYwyJP+sfsi5", "base64"),
    format: "der",
    type: "pkcs8",
  });
  const licenses = new Map<string, License>();
  let offline = false;
  let forged = false;
  const signed = (payload: LeasePayload) => {
    const bytes = Buffer.from(JSON.stringify(payload));
    return JSON.stringify({
      payload: bytes.toString("base64url"),
      signature: sign(null, bytes, forged ? forgedKey : key).toString("base64url"),
    });
  };
  http.setDefault((request) => {
    if (offline) return { status: 503, body: "license server unavailable" };
    const body = request.json<{
      licenseKey?: string;
      instanceKey?: string;
      clusterUuid: string;
      nonce: string;
    }>();
    const t = Math.floor(now() / 1000);
    const base = { clusterUuid: body.clusterUuid, nonce: body.nonce, issuedAt: t };
    const refuse = (status: "invalid" | "revoked" | "conflict", code: number, license?: License) => ({
      status: code,
      body: signed({ ...base, status, ...(license ? { licenseId: license.id } : {}) }),
    });
    const found =
      request.path === "/v1/activate"
        ? licenses.get(body.licenseKey ?? "")
        : [...licenses.values()].find((l) => l.instanceKey && l.instanceKey === body.instanceKey);
    if (request.path === "/v1/release") {
      if (found?.cluster === body.clusterUuid) {
        found.cluster = undefined;
        found.instanceKey = undefined;
      }
      return { status: 200, body: signed({ ...base, status: "invalid", reason: "released" }) };
    }
    if (!found) return refuse("invalid", 403);
    if (found.revoked) return refuse("revoked", 403, found);
    if (found.cluster && found.cluster !== body.clusterUuid) return refuse("conflict", 409, found);
    found.cluster = body.clusterUuid;
    found.instanceKey ??= `inst-${randomUUID()}`;
    return {
      status: 200,
      body: signed({
        ...base,
        status: "active",
        licenseId: found.id,
        instanceKey: found.instanceKey,
        leaseExpiresAt: t + 3 * DAY_S,
        licenseExpiresAt: found.expiresAt,
      }),
    };
  });
  let serial = 0;
  return {
    url: http.url,
    http,
    addLicense(options = {}) {
      const licenseKey = `MONPRO-${randomUUID()}`;
      serial += 1;
      licenses.set(licenseKey, {
        id: `LIC-${String(serial).padStart(4, "0")}-${randomUUID().slice(0, 6)}`,
        expiresAt: Math.floor(now() / 1000) + (options.expiresInDays ?? 365) * DAY_S,
        revoked: false,
      });
      return licenseKey;
    },
    revoke(licenseKey) {
      const l = licenses.get(licenseKey);
      if (l) l.revoked = true;
    },
    setOffline: (value) => void (offline = value),
    setForged: (value) => void (forged = value),
    calls: (path) => http.requests.filter((r) => !path || r.path === path).length,
    close: () => http.close(),
  };
}
