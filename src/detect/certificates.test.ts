import { describe, expect, test } from "bun:test";
import { hashSecretValues } from "../kube/object-filter.ts";
import type { KubeObject } from "../model/inventory.ts";
import { servingCertificate } from "../sim/pki.ts";
import { inventoryOf, pod } from "../testing/inventory.ts";
import { detectCertificates } from "./certificates.ts";

const NOW = Date.parse("2026-06-01T00:00:00Z");
const DAY = 86_400_000;
const b64 = (s: string) => Buffer.from(s).toString("base64");

/** A TLS Secret as the API server serves it, then as mon caches it (hashed, with the certificate's facts). */
function tlsSecret(name: string, notAfter: number): KubeObject {
  const { certPem, keyPem } = servingCertificate({
    cn: `${name}.example.com`,
    dnsNames: [`${name}.example.com`],
    notAfter,
  });
  return hashSecretValues({
    kind: "Secret",
    apiVersion: "v1",
    metadata: { namespace: "shop", name, uid: `s-${name}` },
    type: "kubernetes.io/tls",
    data: { "tls.crt": b64(certPem), "tls.key": b64(keyPem) },
  });
}
const ingress = (secret: string): KubeObject => ({
  kind: "Ingress",
  apiVersion: "networking.k8s.io/v1",
  metadata: { namespace: "shop", name: "storefront", uid: "i-1" },
  spec: { tls: [{ hosts: ["shop.example.com"], secretName: secret }], rules: [] },
});
const mounting = (secret: string): KubeObject => {
  const p = pod("shop", "api-1");
  return { ...p, spec: { ...p.spec, volumes: [{ name: "tls", secret: { secretName: secret } }] } };
};
const certificate = (name: string, secretName: string, notAfter: string): KubeObject => ({
  kind: "Certificate",
  apiVersion: "cert-manager.io/v1",
  metadata: { namespace: "shop", name, uid: `c-${name}` },
  spec: { secretName, dnsNames: ["shop.example.com"] },
  status: {
    notAfter,
    renewalTime: "2026-05-01T00:00:00Z",
    conditions: [{ type: "Ready", status: "False", message: "Issuing certificate as Secret does not exist" }],
  },
});
const found = (...objects: KubeObject[]) =>
  detectCertificates(inventoryOf(...objects), NOW).map((f) => [f.reason, f.object.kind, f.object.name]);

describe("certificate expiry", () => {
  test("the cached Secret keeps the certificate's public facts, never a value", () => {
    const secret = tlsSecret("shop-tls", NOW + 90 * DAY);
    expect(secret.tlsCertificate).toEqual({
      notAfter: new Date(Math.floor((NOW + 90 * DAY) / 1000) * 1000).toISOString(),
      subject: "CN=shop-tls.example.com",
      dnsNames: ["shop-tls.example.com"],
    });
    expect(JSON.stringify(secret)).not.toContain("BEGIN");
  });

  test("expired and expiring certificates an Ingress serves or a running pod mounts; unused ones say nothing", () => {
    expect(found(tlsSecret("old", NOW - 2 * DAY), ingress("old"))).toEqual([["CertificateExpired", "Secret", "old"]]);
    expect(found(tlsSecret("soon", NOW + 5 * DAY), mounting("soon"))).toEqual([
      ["CertificateExpiringSoon", "Secret", "soon"],
    ]);
    expect(found(tlsSecret("fine", NOW + 30 * DAY), ingress("fine"))).toEqual([]);
    expect(found(tlsSecret("unused", NOW - 2 * DAY))).toEqual([]);
    const [expired] = detectCertificates(inventoryOf(tlsSecret("old", NOW - 2 * DAY), ingress("old")), NOW);
    expect(expired!.summary).toMatch(
      /^TLS secret shop\/old: the certificate expired 2026-05-30T00:00:00.000Z \(2 days ago\)$/,
    );
    expect(expired!.evidence).toContainEqual({ label: "used by", value: "ingress storefront" });
  });

  test("cert-manager Certificates are read from their status; the Secret they manage is not reported twice", () => {
    expect(
      found(
        certificate("shop", "shop-tls", "2026-06-04T00:00:00Z"),
        tlsSecret("shop-tls", NOW + 3 * DAY),
        ingress("shop-tls"),
      ),
    ).toEqual([["CertificateExpiringSoon", "Certificate", "shop"]]);
    expect(found(certificate("shop", "shop-tls", "2026-05-01T00:00:00Z"))).toEqual([
      ["CertificateExpired", "Certificate", "shop"],
    ]);
  });
});
