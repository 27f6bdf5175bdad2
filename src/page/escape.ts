/**
 * Text as HTML text or attribute value: `& < > " '` escaped, so nothing the cluster wrote (names, messages,
 * annotations) becomes markup on the page (issue 44).
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

const ENTITIES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
