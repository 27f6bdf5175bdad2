import { createHash, X509Certificate } from "node:crypto";
import type { KubeObject } from "../model/inventory.ts";

/** Keeps only `apiVersion`, `kind` and `metadata`: what mon needs of kinds it has no detector for (spec 5.5 "metadata is enough"). */
export function metadataOnly(object: KubeObject): KubeObject {
  return { apiVersion: object.apiVersion, kind: object.kind, metadata: object.metadata };
}

/**
 * Replaces every Secret value with its SHA-256 (hex) so values are never stored (spec 2.1 watch.secrets),
 * while a change of a value stays visible. `stringData` (never returned by the API server) is dropped. A
 * `tls.crt` keeps the public facts of its first certificate in `tlsCertificate` (notAfter, subject, DNS
 * names: what certificate expiry is detected from; never a key); one that does not parse is left out.
 */
export function hashSecretValues(secret: KubeObject): KubeObject {
  const data = secret.data as Record<string, string> | undefined;
  const { stringData: _dropped, data: _data, ...rest } = secret;
  if (!data) return rest;
  const certificate = data["tls.crt"] ? certificateFacts(data["tls.crt"]) : undefined;
  return {
    ...rest,
    data: Object.fromEntries(
      Object.entries(data).map(([k, v]) => [k, `sha256:${createHash("sha256").update(String(v)).digest("hex")}`]),
    ),
    ...(certificate ? { tlsCertificate: certificate } : {}),
  };
}

/** The public facts of the first certificate of a base64 PEM bundle, or undefined when it does not parse. */
function certificateFacts(base64: string): { notAfter: string; subject: string; dnsNames: string[] } | undefined {
  try {
    const pem = Buffer.from(base64, "base64").toString("utf8");
    const first = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(pem)?.[0];
    if (!first) return undefined;
    const cert = new X509Certificate(first);
    const dnsNames = (cert.subjectAltName ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s.startsWith("DNS:"))
      .map((s) => s.slice(4));
    return { notAfter: new Date(cert.validTo).toISOString(), subject: cert.subject.replace(/\n/g, ", "), dnsNames };
  } catch {
    return undefined;
  }
}
