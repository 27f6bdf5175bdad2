import { createHash, randomUUID } from "node:crypto";
import type { KubeConnection } from "./connection.ts";

/** The salt of the cluster UUID (spec 4.3): the namespace UID itself never leaves the cluster. */
const SALT = "mon-cluster-uuid-v1:";

/**
 * The cluster's UUID (spec 4.3): a UUID made of a salted SHA-256 hash of the kube-system namespace UID, so the
 * same cluster always gets the same one and the UID cannot be recovered from it; a random UUID when the
 * namespace cannot be read (`derived: false`).
 */
export async function clusterUuid(connection: KubeConnection): Promise<{ uuid: string; derived: boolean }> {
  try {
    const ns = await connection.getJson<{ metadata?: { uid?: string } }>("/api/v1/namespaces/kube-system");
    const uid = ns.metadata?.uid;
    if (uid)
      return {
        uuid: uuidFromHash(
          createHash("sha256")
            .update(SALT + uid)
            .digest(),
        ),
        derived: true,
      };
  } catch {
    // unreadable: a random one
  }
  return { uuid: randomUUID(), derived: false };
}

/** A version-4-shaped UUID from the first 16 bytes of a hash. */
export function uuidFromHash(hash: Buffer): string {
  const b = Buffer.from(hash.subarray(0, 16));
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
