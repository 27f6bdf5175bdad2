import { type KeyObject, verify } from "node:crypto";

/** What the license server signs (docs/license.md "Responses"). Times are Unix seconds. */
export interface LeasePayload {
  /** `active` grants Pro until `expiresAt`; the others are signed refusals. */
  readonly status: "active" | "invalid" | "revoked" | "conflict";
  /** The license's public id (shown masked), absent for an unknown key. */
  readonly licenseId?: string;
  /** The activation's own key, kept in the instance Secret and sent on renewal. */
  readonly instanceKey?: string;
  /** The cluster the license is bound to (spec 4.3 cluster UUID). */
  readonly clusterUuid: string;
  /** The nonce of the request this answers: an old signed answer cannot be replayed. */
  readonly nonce: string;
  /** Server time of issue. */
  readonly issuedAt: number;
  /** End of this lease (3 days after issue). */
  readonly leaseExpiresAt?: number;
  /** End of the license itself (the subscription), for the 14- and 3-day notices. */
  readonly licenseExpiresAt?: number;
  /** Human-readable reason of a refusal. */
  readonly reason?: string;
}

/** A server answer as it travels and as it is kept in the instance Secret. */
export interface SignedLease {
  /** base64url of the payload's JSON bytes. */
  readonly payload: string;
  /** base64url Ed25519 signature of those bytes. */
  readonly signature: string;
}

/**
 * A lease that failed verification: not signed by a trusted key (`untrusted`), malformed, or not an answer to
 * us.
 */
export class LeaseError extends Error {
  constructor(
    message: string,
    readonly untrusted = false,
  ) {
    super(message);
  }
}

/**
 * Verifies a signed answer against `keys` and returns its payload. Throws LeaseError when no key verifies the
 * signature, the payload is not a lease, or it answers another cluster or nonce than `expect` names.
 */
export function verifyLease(
  signed: SignedLease,
  keys: readonly KeyObject[],
  expect: { clusterUuid: string; nonce?: string },
): LeasePayload {
  let bytes: Buffer;
  let signature: Buffer;
  try {
    bytes = Buffer.from(signed.payload, "base64url");
    signature = Buffer.from(signed.signature, "base64url");
  } catch {
    throw new LeaseError("the license answer is not base64url");
  }
  if (!keys.some((key) => verify(null, bytes, key, signature)))
    throw new LeaseError("the license answer is not signed by a trusted key", true);
  let payload: LeasePayload;
  try {
    payload = JSON.parse(bytes.toString("utf8")) as LeasePayload;
  } catch {
    throw new LeaseError("the license answer is not JSON");
  }
  if (!["active", "invalid", "revoked", "conflict"].includes(payload.status))
    throw new LeaseError(`the license answer has an unknown status ${String(payload.status)}`);
  if (payload.clusterUuid !== expect.clusterUuid) throw new LeaseError("the license answer is for another cluster");
  if (expect.nonce !== undefined && payload.nonce !== expect.nonce)
    throw new LeaseError("the license answer does not answer this request");
  if (payload.status === "active" && typeof payload.leaseExpiresAt !== "number")
    throw new LeaseError("the license answer grants no lease end");
  return payload;
}

/** A license id as logs and messages show it: the first 4 and last 2 characters. */
export function maskLicenseId(id: string | undefined): string {
  if (!id) return "(none)";
  return id.length <= 8 ? `${id.slice(0, 2)}…` : `${id.slice(0, 4)}…${id.slice(-2)}`;
}
