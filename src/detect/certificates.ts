import type { Finding } from "../model/finding.ts";
import type { InventoryView } from "../model/inventory.ts";
import { finding, refOf } from "./build.ts";
import { parseTime } from "./evidence.ts";

/** How long before its end a certificate in use is reported as expiring, ms: 14 days. */
export const EXPIRING_WITHIN_MS = 14 * 86_400_000;

/**
 * Certificate expiry (spec 1.2 config references): what is happening, not what could — only certificates in
 * use are checked: a TLS Secret an Ingress serves (`spec.tls[].secretName`) or a running pod mounts, and
 * cert-manager Certificates (their `status.notAfter`). Expired → `CertificateExpired`; ending within 14 days →
 * `CertificateExpiringSoon` (cert-manager renews well before that, so a Certificate this close did not renew).
 * A Secret a Certificate manages is reported on the Certificate only. Secrets are read from the facts kept when
 * they were hashed (kube/object-filter.ts); with `watch.secrets: false` only Certificates can be verified. Pure.
 */
export function detectCertificates(inventory: InventoryView, now: number): Finding[] {
  const out: Finding[] = [];
  const managed = new Set<string>();
  for (const cert of inventory.list("Certificate")) {
    const ns = cert.metadata.namespace;
    if (cert.spec?.secretName) managed.add(`${ns}/${cert.spec.secretName}`);
    const notAfter = cert.status?.notAfter;
    if (!notAfter) continue;
    const found = expiry({
      object: refOf({ ...cert, kind: "Certificate" }),
      what: `certificate ${ns}/${cert.metadata.name}`,
      notAfter,
      now,
      evidence: [
        ["secret", cert.spec?.secretName],
        ["dns names", (cert.spec?.dnsNames ?? []).join(", ")],
        ["renewal time", cert.status?.renewalTime],
        ["ready", cert.status?.conditions?.find((c) => c.type === "Ready")?.message],
      ],
    });
    if (found) out.push(found);
  }
  if (!inventory.watches("Secret")) return out;
  for (const [key, users] of secretsInUse(inventory)) {
    if (managed.has(key)) continue;
    const [ns = "", name = ""] = key.split("/");
    const secret = inventory.get("Secret", ns, name);
    const facts = secret?.tlsCertificate;
    if (!secret || !facts) continue;
    const found = expiry({
      object: refOf({ ...secret, kind: "Secret" }),
      what: `TLS secret ${key}`,
      notAfter: facts.notAfter,
      now,
      evidence: [
        ["subject", facts.subject],
        ["dns names", facts.dnsNames.join(", ")],
        ["used by", `${users.slice(0, 3).join(", ")}${users.length > 3 ? ` and ${users.length - 3} more` : ""}`],
      ],
    });
    if (found) out.push(found);
  }
  return out;
}

// --- internal ---

function expiry(options: {
  object: ReturnType<typeof refOf>;
  what: string;
  notAfter: string;
  now: number;
  evidence: readonly (readonly [string, unknown])[];
}): Finding | undefined {
  const { now } = options;
  const end = parseTime(options.notAfter, Number.NaN);
  if (Number.isNaN(end) || end - now > EXPIRING_WITHIN_MS) return undefined;
  const days = Math.floor(Math.abs(end - now) / 86_400_000);
  const expired = end <= now;
  return finding({
    reason: expired ? "CertificateExpired" : "CertificateExpiringSoon",
    object: options.object,
    summary: expired
      ? `${options.what}: the certificate expired ${options.notAfter}${days ? ` (${days} day${days === 1 ? "" : "s"} ago)` : ""}`
      : `${options.what}: the certificate expires ${options.notAfter} (in ${days} day${days === 1 ? "" : "s"})`,
    evidence: [["not after", options.notAfter], ...options.evidence],
    // Counted from when it entered the window (or ended), so the finding keeps one start.
    since: expired ? end : end - EXPIRING_WITHIN_MS,
    now,
    // Expiring soon turns into expired at its end: a pass is due then.
    ...(expired ? {} : { recheckAt: end }),
  });
}

/** TLS Secrets in use, by `namespace/name`, with who uses them: Ingresses' TLS and running pods' volumes. */
function secretsInUse(inventory: InventoryView): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (key: string, user: string) => {
    const users = out.get(key) ?? [];
    if (!users.includes(user)) users.push(user);
    out.set(key, users);
  };
  for (const ing of inventory.list("Ingress"))
    for (const tls of ing.spec?.tls ?? [])
      if (tls.secretName) add(`${ing.metadata.namespace}/${tls.secretName}`, `ingress ${ing.metadata.name}`);
  for (const pod of inventory.list("Pod")) {
    if (pod.status?.phase !== "Running") continue;
    for (const v of pod.spec?.volumes ?? [])
      if (v.secret?.secretName) add(`${pod.metadata.namespace}/${v.secret.secretName}`, `pod ${pod.metadata.name}`);
  }
  return out;
}
