import { basic } from "./_kit/auth.ts";
import * as v from "valibot";
import { escapeHtml } from "./_kit/keys.ts";
import { jsonApi, parseJson, truncate } from "./_kit/http.ts";
import { defineTracker } from "./_kit/tracker.ts";

const Options = v.object({
  organization: v.pipe(
    v.string(),
    v.regex(/^[A-Za-z0-9][A-Za-z0-9-]*$/, "must be the organization name"),
    v.description("Organization."),
  ),
  project: v.pipe(v.string(), v.minLength(1), v.description("Project.")),
  pat: v.pipe(
    v.string(),
    v.minLength(8),
    v.description("Personal access token with Work Items read & write (a credential: ${file:/path})."),
  ),
  workItemType: v.optional(v.pipe(v.string(), v.description("Work item type (Bug, Issue, Task…).")), "Issue"),
  resolvedState: v.optional(
    v.pipe(v.string(), v.description("State that closes it in your process (Done, Closed, Resolved…).")),
    "Done",
  ),
  url: v.optional(
    v.pipe(v.string(), v.url(), v.description("Service URL (Azure DevOps Server: your collection URL).")),
    "https://dev.azure.com",
  ),
});

/**
 * Azure DevOps Boards (providers.md `azureDevOps`): one work item per incident tagged `mon` and with its
 * key as a tag, found by WIQL (`[System.Tags] CONTAINS '<key>'` and not in `resolvedState`). Updates
 * comment; the resolve comments and sets `System.State`. JSON Patch bodies; Basic `:PAT`. `check` reads the
 * project.
 */
export default defineTracker({
  name: "azureDevOps",
  title: "Azure DevOps Boards",
  guide: { credential: "User settings → Personal access tokens: scope Work Items (read & write)." },
  options: Options,
  credentials: ["pat"],
  api(o, http) {
    const org = `${o.url.replace(/\/+$/, "")}/${o.organization}`;
    const base = `${org}/${encodeURIComponent(o.project)}/_apis/wit`;
    const auth = { authorization: basic("", o.pat) };
    const call = jsonApi(http, "", auth);
    const parse = parseJson;
    const quote = (s: string) => s.replace(/'/g, "''");
    return {
      async find(key, signal, now) {
        const query = `Select [System.Id] From WorkItems Where [System.TeamProject] = @project AND [System.Tags] CONTAINS '${quote(key)}' AND [System.State] <> '${quote(o.resolvedState)}'`;
        const { outcome, answer } = await call("POST", `${base}/wiql?api-version=7.1`, { query }, signal, now);
        const id =
          outcome.kind === "ok"
            ? parse<{ workItems?: { id?: number }[] }>(answer?.body)?.workItems?.[0]?.id
            : undefined;
        return { outcome, ...(typeof id === "number" ? { id: String(id) } : {}) };
      },
      async create(m, signal, now) {
        const patch = [
          { op: "add", path: "/fields/System.Title", value: truncate(m.title, 255, "…") },
          {
            op: "add",
            path: "/fields/System.Description",
            value: `<pre>${escapeHtml(truncate(m.text, 30_000))}</pre>`,
          },
          { op: "add", path: "/fields/System.Tags", value: `mon; ${m.dedupKey}` },
        ];
        const { outcome, answer } = await call(
          "POST",
          `${base}/workitems/$${encodeURIComponent(o.workItemType)}?api-version=7.1`,
          patch,
          signal,
          now,
          "application/json-patch+json",
        );
        const id = parse<{ id?: number }>(answer?.body)?.id;
        return { outcome, ...(typeof id === "number" ? { id: String(id) } : {}) };
      },
      comment: async (id, m, signal, now) =>
        (
          await call(
            "POST",
            `${base}/workItems/${id}/comments?api-version=7.1-preview.4`,
            { text: `<pre>${escapeHtml(truncate(m.text, 30_000))}</pre>` },
            signal,
            now,
          )
        ).outcome,
      close: async (id, _m, signal, now) =>
        (
          await call(
            "PATCH",
            `${base}/workitems/${id}?api-version=7.1`,
            [{ op: "add", path: "/fields/System.State", value: o.resolvedState }],
            signal,
            now,
            "application/json-patch+json",
          )
        ).outcome,
      check: async (signal, now) =>
        (
          await call(
            "GET",
            `${org}/_apis/projects/${encodeURIComponent(o.project)}?api-version=7.1`,
            undefined,
            signal,
            now,
          )
        ).outcome,
    };
  },
});
