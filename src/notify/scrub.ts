import { lintSource } from "@secretlint/core";
import { secretLintProfiler } from "@secretlint/profiler";
import { creator as recommended } from "@secretlint/secretlint-rule-preset-recommend";
import type { Message, MessageFinding } from "../model/message.ts";
import { redact } from "../redact/redact.ts";

// secretlint profiles every scan unless told not to, and keeps every timing mark: a long-running daemon's
// scans would grow slower and its memory larger with each message (secretlint issues #1633, #1653).
secretLintProfiler.setEnabled(false);

const CONFIG = { rules: [{ id: "@secretlint/secretlint-rule-preset-recommend", rule: recommended }] };

/**
 * Removes credentials from one text (spec 6.8): mon's generic patterns (credentials in URLs, Authorization and
 * bearer values, `password=`-style pairs, private-key blocks, JWTs), then the vendor token shapes of
 * secretlint's maintained recommended rule set (AWS, GCP, GitHub, GitLab, Slack, npm, OpenAI, Anthropic,
 * SendGrid, Vault, database connection strings, …). Pure computation, asynchronous only because secretlint is. Returns the
 * text and how many values were removed.
 */
export async function scrubText(input: string): Promise<{ text: string; count: number }> {
  // Generic patterns first: a vendor rule may mask only part of an assignment such as `aws_secret_access_key = …`.
  const generic = redact(input);
  const text = generic.text;
  if (text.length < 8) return generic;
  const result = await lintSource({
    source: { filePath: "message.txt", content: text, ext: ".txt", contentType: "text" },
    options: { config: CONFIG, noPhysicFilePath: true },
  });
  const ranges = result.messages.map((m) => m.range).sort((a, b) => a[0] - b[0]);
  let out = "";
  let at = 0;
  let count = 0;
  for (const [start, end] of ranges) {
    // A match around a value the generic patterns already masked (a connection string's host) keeps its context.
    if (start < at || text.slice(start, end).includes("[redacted")) continue;
    out += `${text.slice(at, start)}[redacted]`;
    at = end;
    count++;
  }
  return { text: out + text.slice(at), count: count + generic.count };
}

/** Scrubs every string a message carries to a provider (title, text, Markdown, news, finding summaries and evidence). */
export async function scrubMessage(message: Message): Promise<{ message: Message; count: number }> {
  let count = 0;
  const clean = async (text: string) => {
    const r = await scrubText(text);
    count += r.count;
    return r.text;
  };
  const findings: MessageFinding[] = [];
  for (const f of message.findings) {
    findings.push({
      ...f,
      summary: await clean(f.summary),
      evidence: await Promise.all(f.evidence.map(async (e) => ({ label: e.label, value: await clean(e.value) }))),
    });
  }
  const scrubbed: Message = {
    ...message,
    title: await clean(message.title),
    text: await clean(message.text),
    markdown: await clean(message.markdown),
    news: await Promise.all(message.news.map(clean)),
    findings,
  };
  return { message: scrubbed, count };
}
