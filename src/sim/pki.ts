import { generateKeyPairSync, randomBytes } from "node:crypto";
import forge from "node-forge";

/** PEM material of the simulator: its CA, its serving certificate, and an admin client certificate signed by the CA. */
export interface SimPki {
  readonly caCert: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
}

/**
 * Creates a fresh CA and certificates, like a real cluster's own CA (ARCHITECTURE.md simulator).
 * RSA-2048 keys come from node:crypto; node-forge builds and signs the X.509 certificates, so no
 * `openssl` binary is needed (the distroless image has none). The server certificate covers
 * `localhost`, `127.0.0.1` and `::1`; certificates are valid from one hour ago for one year.
 */
export function createSimPki(commonName = "mon-sim"): SimPki {
  const ca = issue({ cn: `${commonName}-ca`, isCA: true });
  const server = issue({ cn: commonName, issuer: ca, san: ["localhost", "127.0.0.1", "::1"] });
  const client = issue({ cn: "admin", org: "system:masters", issuer: ca });
  return {
    caCert: ca.certPem,
    serverCert: server.certPem,
    serverKey: server.keyPem,
    clientCert: client.certPem,
    clientKey: client.keyPem,
  };
}

// --- internal ---

interface Issued {
  cert: forge.pki.Certificate;
  key: forge.pki.rsa.PrivateKey;
  certPem: string;
  keyPem: string;
}

/**
 * A self-signed serving certificate for `cn` and `dnsNames`, valid until `notAfter` (epoch ms), with its key
 * (PEM): what a TLS Secret holds, for tests of certificate expiry.
 */
export function servingCertificate(options: { cn: string; dnsNames: string[]; notAfter: number }): {
  certPem: string;
  keyPem: string;
} {
  const issued = issue({ cn: options.cn, san: options.dnsNames, notAfter: options.notAfter });
  return { certPem: issued.certPem, keyPem: issued.keyPem };
}

function issue(options: {
  cn: string;
  org?: string;
  isCA?: boolean;
  issuer?: Issued;
  san?: string[];
  notAfter?: number;
}): Issued {
  const pair = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(pair.publicKey);
  cert.serialNumber = `01${randomBytes(8).toString("hex")}`;
  const now = Date.now();
  cert.validity.notAfter = new Date(options.notAfter ?? now + 365 * 86_400_000);
  cert.validity.notBefore = new Date(Math.min(now, cert.validity.notAfter.getTime()) - 30 * 86_400_000);
  const subject: forge.pki.CertificateField[] = [{ name: "commonName", value: options.cn }];
  if (options.org) subject.push({ name: "organizationName", value: options.org });
  cert.setSubject(subject);
  cert.setIssuer(options.issuer ? options.issuer.cert.subject.attributes : subject);
  const extensions: object[] = [{ name: "basicConstraints", cA: Boolean(options.isCA), critical: true }];
  if (options.isCA)
    extensions.push({ name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true });
  else {
    extensions.push({ name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true });
    extensions.push({ name: "extKeyUsage", serverAuth: Boolean(options.san), clientAuth: !options.san });
  }
  if (options.san) {
    extensions.push({
      name: "subjectAltName",
      altNames: options.san.map((s) => (/^[\d.:]+$/.test(s) ? { type: 7, ip: s } : { type: 2, value: s })),
    });
  }
  cert.setExtensions(extensions);
  const key = forge.pki.privateKeyFromPem(pair.privateKey) as forge.pki.rsa.PrivateKey;
  cert.sign(options.issuer?.key ?? key, forge.md.sha256.create());
  return { cert, key, certPem: forge.pki.certificateToPem(cert), keyPem: pair.privateKey };
}
