import { createPublicKey, type KeyObject } from "node:crypto";
import { BUILD } from "../build-info.ts";

/** The vendor's Ed25519 public key (SPKI, base64): every lease a release build accepts is signed by it. */
const VENDOR_KEY = "MCowBQYDK2VwAyEAMuf0Ue8rr0LJqjLOdpHBCPfa3YDytmRWr2vvZs16fNA=";

/**
 * The test license server's public key (src/testing/license-server.ts holds its private key). Trusted only by
 * development builds, so a test key can never turn Pro on in a released binary.
 */
const TEST_KEY = "MCowBQYDK2VwAyEAZJw+5ptuI5IwXoy0b15R+tVCzA1dv9oyZlRlpMXdxRk=";

/** The keys whose signatures this build accepts on a lease (spec 5.4; docs/license.md "Signatures"). */
export function trustedKeys(build: "release" | "development" = BUILD): readonly KeyObject[] {
  const keys = build === "release" ? [VENDOR_KEY] : [VENDOR_KEY, TEST_KEY];
  return keys.map((k) => createPublicKey({ key: Buffer.from(k, "base64"), format: "der", type: "spki" }));
}
