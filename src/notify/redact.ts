const KEYWORDS =
  "password|passwd|pwd|secret|secret[_-]?key|client[_-]?secret|token|access[_-]?token|refresh[_-]?token|auth[_-]?token|api[_-]?key|apikey|access[_-]?key|private[_-]?key";

const PATTERNS: readonly [RegExp, string][] = [
  [
    /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY( BLOCK)?-----[\s\S]*?-----END \1PRIVATE KEY( BLOCK)?-----/g,
    "[redacted-private-key]",
  ],
  [/\b([a-z][a-z0-9+.-]*):\/\/([^:\s/@]*):([^@\s/]+)@/gi, "$1://$2:[redacted]@"],
  [/\b(authorization:\s*(?:bearer|basic|token)\s+)\S+/gi, "$1[redacted]"],
  [/\b(bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, "$1[redacted]"],
  // Not a path segment (`/serviceaccount/token: no such file`) and not prose (`password: (input hidden)`).
  [
    new RegExp(`(?<![/\\\\])\\b([a-z0-9_.-]*(?:${KEYWORDS})["']?\\s*[:=]\\s*["']?)[^\\s"',;&()]+`, "gi"),
    "$1[redacted]",
  ],
  [/\b(xox[abposr]-)[A-Za-z0-9-]+/g, "$1[redacted]"],
  [/\b(AKIA|ASIA)[A-Z0-9]{16}\b/g, "[redacted-aws-key]"],
  [/\bAIza[0-9A-Za-z_-]{35}\b/g, "[redacted-google-api-key]"],
  // gitleaks' sendgrid-api-token: base64url segments may start with '-' or '_', which vendor rules can miss.
  [/\bSG\.[A-Za-z0-9=_.-]{66}/g, "[redacted-sendgrid-key]"],
  [/\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b/g, "[redacted-jwt]"],
];

/**
 * mon's generic credential patterns (spec 6.8), applied after secretlint's vendor rules (notify/scrub.ts):
 * private-key blocks, Google API keys, credentials in URLs (any scheme, empty user too), Authorization and bearer values,
 * `password=` / `token:`-style pairs (not names such as `secretName:`), Slack tokens, AWS access key ids and
 * JWTs. Synchronous, so rendering can use it directly. Returns the text and how many values were removed.
 */
export function redact(text: string): { text: string; count: number } {
  let count = 0;
  let out = text;
  for (const [pattern, replacement] of PATTERNS) {
    out = out.replace(pattern, (...args) => {
      count++;
      return replacement.replace(/\$(\d)/g, (_, i: string) => String(args[Number(i)] ?? ""));
    });
  }
  return { text: out, count };
}
