import { randomUUID } from "node:crypto";
import type { KeyObject } from "node:crypto";
import type { HttpClient } from "../outbound/client.ts";
import { type LeasePayload, LeaseError, type SignedLease, verifyLease } from "./lease.ts";

/** The license server's answer to one call: a verified signed answer, or why there is none. */
export type LicenseOutcome =
  | { readonly kind: "answer"; readonly payload: LeasePayload; readonly signed: SignedLease }
  | {
      readonly kind: "unreachable";
      readonly detail: string;
      /** The server answered, but with a signature no key of this build verifies (a test or foreign server). */
      readonly untrusted?: { readonly server: string };
    };

/** The three calls of docs/license.md "Protocol". */
export interface LicenseClient {
  activate(licenseKey: string): Promise<LicenseOutcome>;
  renew(instanceKey: string): Promise<LicenseOutcome>;
  /**
   * Releases the cluster binding (the installer's "remove key" and `--uninstall`): a signed answer says the
   * server took it (`answer`, whatever its status); `unreachable` says it may still be bound.
   */
  release(instanceKey: string): Promise<LicenseOutcome>;
}

/** How long one license call may take (the leader waits for activation before building its components). */
export const LICENSE_TIMEOUT_MS = 10_000;

/**
 * The license protocol over the outbound client (proxy and CA bundle apply): JSON POSTs to
 * `{url}/v1/activate`, `/v1/renew` and `/v1/release`, each with a fresh nonce. An answer counts only when it
 * is signed by one of `keys`, names this cluster and echoes the nonce, whatever its HTTP status; anything else
 * (network error, timeout, an unsigned or forged answer) is `unreachable`, which never ends Pro by itself.
 */
export function createLicenseClient(options: {
  url: string;
  http: HttpClient;
  keys: readonly KeyObject[];
  clusterUuid: string;
  monVersion: string;
}): LicenseClient {
  const base = options.url.replace(/\/+$/, "");
  const call = async (path: string, body: Record<string, unknown>): Promise<LicenseOutcome> => {
    const nonce = randomUUID();
    let answer: Awaited<ReturnType<HttpClient["request"]>>;
    try {
      answer = await options.http.request({
        method: "POST",
        url: `${base}${path}`,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...body, clusterUuid: options.clusterUuid, monVersion: options.monVersion, nonce }),
        timeoutMs: LICENSE_TIMEOUT_MS,
      });
    } catch (error) {
      return { kind: "unreachable", detail: (error as Error).message.split("\n")[0] ?? "network error" };
    }
    let signed: SignedLease;
    try {
      signed = JSON.parse(answer.body) as SignedLease;
    } catch {
      return { kind: "unreachable", detail: `HTTP ${answer.status} without a signed answer` };
    }
    try {
      const payload = verifyLease(signed, options.keys, { clusterUuid: options.clusterUuid, nonce });
      return { kind: "answer", payload, signed };
    } catch (error) {
      const why = error instanceof LeaseError ? error.message : "unreadable answer";
      return {
        kind: "unreachable",
        detail: `HTTP ${answer.status}: ${why}`,
        ...(error instanceof LeaseError && error.untrusted ? { untrusted: { server: base } } : {}),
      };
    }
  };
  return {
    activate: (licenseKey) => call("/v1/activate", { licenseKey }),
    renew: (instanceKey) => call("/v1/renew", { instanceKey }),
    release: (instanceKey) => call("/v1/release", { instanceKey }),
  };
}
