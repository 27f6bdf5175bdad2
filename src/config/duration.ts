const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const DURATION = /^(?:(\d+(?:\.\d+)?)(ms|s|m|h))+$/;

/** True when `text` is a duration such as `500ms`, `30s`, `5m`, `1h30m` (Go's notation without µs/ns). */
export function isValidDuration(text: string): boolean {
  return DURATION.test(text.trim());
}

/** Parses a duration to milliseconds; throws Error naming the text when it is not one. */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (!isValidDuration(trimmed)) throw new Error(`"${text}" is not a duration (e.g. 30s, 5m, 1m30s)`);
  let total = 0;
  for (const match of trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g))
    total += Number(match[1]) * (UNIT_MS[match[2] ?? "ms"] ?? 1);
  return Math.round(total);
}
