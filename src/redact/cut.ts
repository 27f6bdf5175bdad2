/** Characters a credential never contains: a cut may end right after one. */
const BOUNDARY = /[\s,;:=&"'()<>{}\]|]/;

/**
 * `text` cut to at most `max` characters (the cut marked with `…`), never inside a token: a cut that falls in
 * a run of token characters drops the run back to the last boundary (a blank or `, ; : = & " ' ( ) < > { } ] |`),
 * so neither a partial credential nor a partial `[redacted…]` marker is left at the end. Apply after redact()
 * (spec 6.8: redaction before truncation).
 */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  if (!BOUNDARY.test(text[end]!)) while (end > 0 && !BOUNDARY.test(text[end - 1]!)) end--;
  return `${text.slice(0, end).replace(/\s+$/, "")}…`;
}

/**
 * `text` cut to at most `max` characters keeping its end (marked `…` at the start), never inside a token: the
 * mirror of `cut` for text whose point is at its end (a log line: `ERROR … caused by: disk full`).
 */
export function cutStart(text: string, max: number): string {
  if (text.length <= max) return text;
  let start = text.length - max + 1;
  if (!BOUNDARY.test(text[start - 1]!)) while (start < text.length && !BOUNDARY.test(text[start]!)) start++;
  return `…${text.slice(start).replace(/^\s+/, "")}`;
}
