import type * as v from "valibot";

const EXPECTED: Readonly<Record<string, string>> = {
  boolean: "must be true or false",
  number: "must be a number",
  string: "must be text",
  array: "must be a list",
  object: "must be a mapping of keys to values",
  record: "must be a mapping of keys to values",
};

/**
 * One configuration issue in mon's words: `must be a whole number (got 1.5)`, `must be true or false
 * (got "yes")`. Custom messages from the schema are kept. `secret` leaves the received value out.
 */
export function issueMessage(issue: v.BaseIssue<unknown>, secret = false): string {
  const requirement = (issue as { requirement?: unknown }).requirement;
  let message: string;
  if (issue.kind === "schema" && issue.message.startsWith("Invalid type:")) {
    const expected = (issue.expected ?? "").replace(/^"|"$/g, "");
    message = EXPECTED[expected.toLowerCase()] ?? `must be ${issue.expected}`;
  } else if (issue.type === "integer" && issue.message.startsWith("Invalid integer"))
    message = "must be a whole number";
  else if (issue.type === "min_value" && issue.message.startsWith("Invalid value"))
    message = `must be at least ${String(requirement)}`;
  else if (issue.type === "max_value" && issue.message.startsWith("Invalid value"))
    message = `must be at most ${String(requirement)}`;
  else if (issue.type === "min_length" && issue.message.startsWith("Invalid length"))
    message = requirement === 1 ? "must not be empty" : `must have at least ${String(requirement)} characters`;
  else if (issue.type === "url" && issue.message.startsWith("Invalid URL")) message = "must be an absolute URL";
  else message = issue.message.replace(/^Invalid (type|value): /, "");
  const received = issue.received;
  // A length check receives the length, which says less than the message.
  if (issue.type === "min_length" || issue.type === "max_length") return message;
  if (secret || received === undefined || message.includes(received) || /^(Object|Array|undefined)$/.test(received))
    return message;
  return `${message} (got ${received})`;
}
