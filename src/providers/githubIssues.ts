import { bearer } from "./_kit/auth.ts";
import * as v from "valibot";
import type { Message } from "../model/message.ts";
import { jsonApi, parseJson as parse, truncate } from "./_kit/http.ts";
import { defineTracker, marker } from "./_kit/tracker.ts";

/** GitHub caps an issue body at 65,536 characters; label names at 50 (so the key goes in a hidden marker). */
const BODY_MAX = 60_000;

const Options = v.object({
  token: v.pipe(
    v.string(),
    v.minLength(8),
    v.description(
      "Fine-grained token with Issues read/write, or an App installation token (a credential: ${file:/path}).",
    ),
  ),
  owner: v.pipe(
    v.string(),
    v.regex(/^[A-Za-z0-9-]+$/, "must be a user or organization name"),
    v.description("Repository owner."),
  ),
  repo: v.pipe(v.string(), v.regex(/^[A-Za-z0-9._-]+$/, "must be a repository name"), v.description("Repository.")),
  apiUrl: v.optional(
    v.pipe(v.string(), v.url(), v.description("API base (GitHub Enterprise Server: https://{host}/api/v3).")),
    "https://api.github.com",
  ),
  labels: v.optional(
    v.pipe(v.array(v.pipe(v.string(), v.maxLength(50))), v.description("Labels besides `mon` (≤ 50 characters each).")),
    [],
  ),
});

/**
 * GitHub Issues (providers.md `githubIssues`): one issue per incident, labelled `mon`, its key in a hidden
 * marker in the body (labels are too short); found again with `GET …/issues?labels=mon&state=open` (not the
 * search API, 30 requests a minute). Updates comment; the resolve comments and closes (`state_reason:
 * completed`). `check` reads the repository.
 */
export default defineTracker({
  name: "githubIssues",
  title: "GitHub Issues",
  guide: { credential: "Settings → Developer settings → Fine-grained tokens: the repository, Issues read and write." },
  options: Options,
  credentials: ["token"],
  api(o, http) {
    const base = `${o.apiUrl.replace(/\/+$/, "")}/repos/${o.owner}/${o.repo}`;
    const call = jsonApi(http, base, {
      accept: "application/vnd.github+json",
      authorization: bearer(o.token),
      "x-github-api-version": "2022-11-28",
    });
    return {
      async find(key, signal, now) {
        const { outcome, answer } = await call(
          "GET",
          "/issues?labels=mon&state=open&per_page=100",
          undefined,
          signal,
          now,
        );
        if (outcome.kind !== "ok") return { outcome };
        const listed = parse<unknown>(answer?.body);
        const issues = (Array.isArray(listed) ? listed : []) as { number: number; body?: string | null }[];
        const hit = issues.find((i) => (i.body ?? "").includes(marker(key)));
        return { outcome, ...(hit ? { id: String(hit.number) } : {}) };
      },
      async create(m, signal, now) {
        const { outcome, answer } = await call(
          "POST",
          "/issues",
          { title: truncate(m.title, 250), body: issueBody(m), labels: ["mon", ...o.labels] },
          signal,
          now,
        );
        const n = parse<{ number?: number }>(answer?.body)?.number;
        return { outcome, ...(typeof n === "number" ? { id: String(n) } : {}) };
      },
      comment: async (id, m, signal, now) =>
        (await call("POST", `/issues/${id}/comments`, { body: truncate(m.markdown, BODY_MAX) }, signal, now)).outcome,
      close: async (id, _m, signal, now) =>
        (await call("PATCH", `/issues/${id}`, { state: "closed", state_reason: "completed" }, signal, now)).outcome,
      check: async (signal, now) => (await call("GET", "", undefined, signal, now)).outcome,
    };
  },
});

/** The issue body: the message in Markdown and the hidden key marker. */
export function issueBody(m: Message): string {
  return `${truncate(m.markdown, BODY_MAX)}\n\n${marker(m.dedupKey)}`;
}
