/**
 * A different three-letter word for each `i` below 17,576 (`aaa`, `aab`, …): names and error lines that differ
 * in letters, as digits would be normalised away by error grouping (correlate/shared-errors.ts) and make
 * distinct errors one.
 */
export function word(i: number): string {
  return [676, 26, 1].map((k) => String.fromCharCode(97 + (Math.floor(i / k) % 26))).join("");
}
