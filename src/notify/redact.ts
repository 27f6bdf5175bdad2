const PATTERNS: readonly [RegExp, string][] = [
  [/\b(https?|postgres(?:ql)?|mysql|mongodb(?:\+srv)?|redis|amqps?):\/\/([^:\s/@]+):([^@\s/]+)@/gi, "$1://$2:[redacted]@"],
  [/\b(authorization:\s*(?:bearer|basic)\s+)\S+/gi, "$1[redacted]"],
  [/\b(bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, "$1[redacted]"],
  [/\b((?:[a-z0-9_.-]*)(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key)["']?\s*[:=]\s*["']?)[^\s"',;&]+/gi, "$1[redacted]"],
  [/\b(xox[abposr]-)[A-Za-z0-9-]+/g, "$1[redacted]"],
  [/\b(AKIA|ASIA)[A-Z0-9]{16}\b/g, "[redacted-aws-key]"],
  [/\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b/g, "[redacted-jwt]"],
];

/**
 * Removes credentials from text a pod or the cluster wrote before it is shown (spec 6.8): URL passwords,
 * Authorization headers, bearer tokens, `password=`/`token:`-style assignments, Slack tokens, AWS access
 * key ids and JWTs. Returns the text and how many values were removed (for `mon_redacted_values_total`).
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
