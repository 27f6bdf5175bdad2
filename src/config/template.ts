/** A parsed message template: literal text and field references. */
export type Template = readonly ({ readonly text: string } | { readonly field: "Message" | "Text" })[];

const FIELDS = new Set(["Message", "Text"]);

/**
 * Parses the documented subset of Go's text/template used by `templates` (spec 2.1): literal text with
 * `{{.Message}}` and `{{.Text}}` (spaces inside the braces allowed; `{{- ` and ` -}}` trim whitespace).
 * Anything else (another field, a pipeline, an unclosed action) is a parse error naming it.
 */
export function parseTemplate(source: string): { ok: true; template: Template } | { ok: false; error: string } {
  const parts: ({ text: string } | { field: "Message" | "Text" })[] = [];
  let rest = source;
  while (rest.length > 0) {
    const open = rest.indexOf("{{");
    if (open < 0) {
      parts.push({ text: rest });
      break;
    }
    let literal = rest.slice(0, open);
    const close = rest.indexOf("}}", open + 2);
    if (close < 0) return { ok: false, error: `unclosed action at offset ${source.length - rest.length + open}` };
    let action = rest.slice(open + 2, close);
    let after = rest.slice(close + 2);
    if (action.startsWith("-")) {
      literal = literal.replace(/\s+$/, "");
      action = action.slice(1);
    }
    if (action.endsWith("-")) {
      after = after.replace(/^\s+/, "");
      action = action.slice(0, -1);
    }
    const name = action.trim();
    if (literal) parts.push({ text: literal });
    if (!/^\.[A-Za-z]+$/.test(name) || !FIELDS.has(name.slice(1))) {
      return { ok: false, error: `unknown action {{${action}}} (only {{.Message}} and {{.Text}} are supported)` };
    }
    parts.push({ field: name.slice(1) as "Message" | "Text" });
    rest = after;
  }
  return { ok: true, template: parts };
}

/** Renders a parsed template with the message's `Message` (headline) and `Text` (whole body). */
export function renderTemplate(template: Template, data: { Message: string; Text: string }): string {
  return template.map((p) => ("text" in p ? p.text : data[p.field])).join("");
}
