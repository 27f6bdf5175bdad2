import { KubeError } from "../kube/errors.ts";
import type { KubeConnection } from "../kube/connection.ts";
import type { SignedLease } from "./lease.ts";
import type { LicenseState, LicenseStateName } from "./machine.ts";

/** The instance Secret's name (spec 5.4), in mon's namespace; mon may get, create and update it by name only. */
export const INSTANCE_SECRET = "mon-license-instance";

/** What the instance Secret holds (docs/license.md "The instance Secret"). */
export interface InstanceRecord {
  readonly state?: LicenseState;
  /** SHA-256 of the key the binding belongs to: a changed key activates anew. */
  readonly keySha256?: string;
  /** Set by the installer's "remove key" (RFC 3339); the running leader then releases the binding. */
  readonly deactivatedAt?: string;
}

/** Reads and writes the instance Secret. Errors are KubeError; a missing Secret reads as empty. */
export interface InstanceStore {
  read(): Promise<InstanceRecord>;
  write(record: InstanceRecord): Promise<void>;
}

const KEYS = {
  state: "state",
  highWater: "clock-high-water",
  instanceKey: "instance-key",
  licenseId: "license-id",
  lease: "lease",
  keySha256: "key-sha256",
  deactivatedAt: "deactivated-at",
} as const;

/** The instance Secret `mon-license-instance` in `namespace`, through the Kubernetes API. */
export function instanceSecretStore(connection: KubeConnection, namespace: string): InstanceStore {
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets`;
  let resourceVersion: string | undefined;
  let exists = false;
  const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
  const text = (data: Record<string, string> | undefined, key: string) =>
    data?.[key] !== undefined ? Buffer.from(data[key] ?? "", "base64").toString("utf8") : undefined;
  return {
    async read() {
      const response = await connection.request(`${path}/${INSTANCE_SECRET}`);
      if (response.status === 404) {
        exists = false;
        return {};
      }
      if (!response.ok)
        throw new KubeError("http", `reading Secret ${namespace}/${INSTANCE_SECRET}: HTTP ${response.status}`);
      const secret = (await response.json()) as {
        metadata?: { resourceVersion?: string };
        data?: Record<string, string>;
      };
      exists = true;
      resourceVersion = secret.metadata?.resourceVersion;
      const data = secret.data;
      const stateText = text(data, KEYS.state);
      let state: LicenseState | undefined;
      try {
        state = stateText ? (JSON.parse(stateText) as LicenseState) : undefined;
      } catch {
        state = undefined;
      }
      const highWater = Number(text(data, KEYS.highWater) ?? 0) || 0;
      if (state) state = { ...state, highWater: Math.max(state.highWater ?? 0, highWater) };
      return {
        ...(state ? { state } : {}),
        ...(text(data, KEYS.keySha256) ? { keySha256: text(data, KEYS.keySha256) } : {}),
        ...(text(data, KEYS.deactivatedAt)?.trim() ? { deactivatedAt: text(data, KEYS.deactivatedAt)?.trim() } : {}),
      };
    },
    async write(record) {
      const s = record.state;
      const data: Record<string, string> = {};
      if (s) {
        data[KEYS.state] = b64(JSON.stringify(s));
        data[KEYS.highWater] = b64(String(s.highWater));
        if (s.instanceKey) data[KEYS.instanceKey] = b64(s.instanceKey);
        if (s.licenseId) data[KEYS.licenseId] = b64(s.licenseId);
        if (s.lease) data[KEYS.lease] = b64(JSON.stringify(s.lease satisfies SignedLease));
      }
      if (record.keySha256) data[KEYS.keySha256] = b64(record.keySha256);
      if (record.deactivatedAt) data[KEYS.deactivatedAt] = b64(record.deactivatedAt);
      const body = {
        apiVersion: "v1",
        kind: "Secret",
        type: "Opaque",
        metadata: {
          name: INSTANCE_SECRET,
          namespace,
          labels: { "app.kubernetes.io/name": "mon", "app.kubernetes.io/component": "license" },
          ...(exists && resourceVersion ? { resourceVersion } : {}),
        },
        data,
      };
      const response = await connection.request(exists ? `${path}/${INSTANCE_SECRET}` : path, {
        method: exists ? "PUT" : "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (!response.ok) {
        // Someone else wrote it (the installer setting deactivated-at): the next read picks it up.
        if (response.status === 409) exists = true;
        throw new KubeError("http", `writing Secret ${namespace}/${INSTANCE_SECRET}: HTTP ${response.status}`);
      }
      const written = (await response.json()) as { metadata?: { resourceVersion?: string } };
      resourceVersion = written.metadata?.resourceVersion;
      exists = true;
    },
  };
}

/** A state read back from the Secret keeps only a known state name. */
export function isStateName(name: unknown): name is LicenseStateName {
  return (
    typeof name === "string" &&
    ["community", "invalid", "pending", "active", "grace", "expired", "revoked", "conflict"].includes(name)
  );
}
