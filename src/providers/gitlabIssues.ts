import * as v from "valibot";
import { jsonApi, parseJson, truncate } from "./_kit/http.ts";
import { defineTracker, marker } from "./_kit/tracker.ts";

const Options = v.object({
  token: v.pipe(
    v.string(),
    v.minLength(8),
    v.description("Project or group access token with `api` scope (a credential: ${file:/path})."),
  ),
  projectId: v.pipe(
    v.union([v.string(), v.number()]),
    v.transform(String),
    v.minLength(1),
    v.description("Project id, or its path such as group/project."),
  ),
  url: v.optional(v.pipe(v.string(), v.url(), v.description("GitLab URL.")), "https://gitlab.com"),
  labels: v.optional(v.pipe(v.array(v.string()), v.description("Labels besides `mon`.")), []),
  confidential: v.optional(v.pipe(v.boolean(), v.description("Create confidential issues.")), false),
});

/**
 * GitLab Issues (providers.md `gitlabIssues`): one issue per incident labelled `mon` with the key marker in
 * its description, found with `GET …/issues?state=opened&labels=mon&search=<key>&in=description`. Updates add
 * notes; the resolve adds a note and closes (`state_event: close`). `PRIVATE-TOKEN` header. `check` reads
 * the project.
 */
export default defineTracker({
  name: "gitlabIssues",
  title: "GitLab Issues",
  guide: { credential: "Project → Settings → Access tokens: role Reporter or above, scope api." },
  options: Options,
  credentials: ["token"],
  api(o, http) {
    const base = `${o.url.replace(/\/+$/, "")}/api/v4/projects/${encodeURIComponent(o.projectId)}`;
    const call = jsonApi(http, base, { "private-token": o.token });
    const parse = parseJson;
    return {
      async find(key, signal, now) {
        const { outcome, answer } = await call(
          "GET",
          `/issues?state=opened&labels=mon&in=description&search=${encodeURIComponent(key)}`,
          undefined,
          signal,
          now,
        );
        if (outcome.kind !== "ok") return { outcome };
        const listed = parse<unknown>(answer?.body);
        const hit = ((Array.isArray(listed) ? listed : []) as { iid: number; description?: string | null }[]).find(
          (i) => (i.description ?? "").includes(marker(key)),
        );
        return { outcome, ...(hit ? { id: String(hit.iid) } : {}) };
      },
      async create(m, signal, now) {
        const { outcome, answer } = await call(
          "POST",
          "/issues",
          {
            title: truncate(m.title, 250),
            description: `${truncate(m.markdown, 100_000)}\n\n${marker(m.dedupKey)}`,
            labels: ["mon", ...o.labels].join(","),
            confidential: o.confidential,
          },
          signal,
          now,
        );
        const iid = parse<{ iid?: number }>(answer?.body)?.iid;
        return { outcome, ...(typeof iid === "number" ? { id: String(iid) } : {}) };
      },
      comment: async (id, m, signal, now) =>
        (await call("POST", `/issues/${id}/notes`, { body: truncate(m.markdown, 100_000) }, signal, now)).outcome,
      close: async (id, _m, signal, now) =>
        (await call("PUT", `/issues/${id}`, { state_event: "close" }, signal, now)).outcome,
      check: async (signal, now) => (await call("GET", "", undefined, signal, now)).outcome,
    };
  },
});
