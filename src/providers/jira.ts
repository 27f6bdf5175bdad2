import { permanent } from "./_kit/outcome.ts";
import { bearer, basic } from "./_kit/auth.ts";
import * as v from "valibot";
import type { Outcome } from "../model/dispatch.ts";
import { jsonApi, parseJson, truncate } from "./_kit/http.ts";
import { defineTracker } from "./_kit/tracker.ts";

const Options = v.pipe(
  v.object({
    baseUrl: v.pipe(v.string(), v.url(), v.description("Jira URL, e.g. https://acme.atlassian.net.")),
    apiToken: v.pipe(
      v.string(),
      v.minLength(8),
      v.description(
        "Cloud: API token (with `email`); Data Center: personal access token (a credential: ${file:/path}).",
      ),
    ),
    email: v.optional(
      v.pipe(
        v.string(),
        v.email(),
        v.description("Cloud: the account's email; absent for Data Center (Bearer token)."),
      ),
    ),
    project: v.pipe(
      v.string(),
      v.regex(/^[A-Z][A-Z0-9_]+$/, "must be a project key such as OPS"),
      v.description("Project key."),
    ),
    issueType: v.optional(v.pipe(v.string(), v.description("Issue type name.")), "Task"),
    resolveTransition: v.optional(
      v.pipe(v.string(), v.description("Name of the transition that closes the issue (its id differs per workflow).")),
      "Done",
    ),
    labels: v.optional(
      v.pipe(
        v.array(v.pipe(v.string(), v.regex(/^\S+$/, "labels have no spaces"))),
        v.description("Labels besides `mon` and the key."),
      ),
      [],
    ),
  }),
);

/**
 * Jira Cloud / Data Center (providers.md `jira`): one issue per incident labelled `mon` and with the
 * incident's key as a label (≤ 255 characters, no spaces), found by JQL (`labels = "<key>" AND
 * statusCategory != Done`; Cloud `POST /rest/api/3/search/jql`, Data Center `POST /rest/api/2/search`).
 * Updates comment; the resolve comments and applies the transition named `resolveTransition`, its id looked
 * up per issue. Cloud uses Basic `email:token`, Data Center a Bearer token. `check` reads `/myself` and the
 * project.
 */
export default defineTracker({
  name: "jira",
  title: "Jira",
  guide: {
    credential:
      "Cloud: id.atlassian.com → Security → API tokens (with email); Data Center: Profile → Personal Access Tokens.",
  },
  options: Options,
  credentials: ["apiToken"],
  api(o, http) {
    const base = o.baseUrl.replace(/\/+$/, "");
    const cloud = Boolean(o.email);
    const call = jsonApi(http, base, {
      accept: "application/json",
      authorization: cloud ? basic(o.email ?? "", o.apiToken) : bearer(o.apiToken),
    });
    const parse = parseJson;
    return {
      async find(key, signal, now) {
        const jql = `project = "${o.project}" AND labels = "${key}" AND statusCategory != Done ORDER BY created DESC`;
        const { outcome, answer } = await call(
          "POST",
          cloud ? "/rest/api/3/search/jql" : "/rest/api/2/search",
          { jql, fields: ["key"], maxResults: 1 },
          signal,
          now,
        );
        if (outcome.kind !== "ok") return { outcome };
        const found = parse<{ issues?: { key?: string }[] }>(answer?.body)?.issues?.[0]?.key;
        return { outcome, ...(found ? { id: found } : {}) };
      },
      async create(m, signal, now) {
        const fields = {
          project: { key: o.project },
          issuetype: { name: o.issueType },
          summary: truncate(m.title, 255, "…"),
          description: truncate(m.text, 32_000),
          labels: ["mon", m.dedupKey.slice(0, 255), ...o.labels],
        };
        const { outcome, answer } = await call("POST", "/rest/api/2/issue", { fields }, signal, now);
        const issue = parse<{ key?: string }>(answer?.body)?.key;
        return { outcome, ...(issue ? { id: issue } : {}) };
      },
      comment: async (id, m, signal, now) =>
        (await call("POST", `/rest/api/2/issue/${id}/comment`, { body: truncate(m.text, 32_000) }, signal, now))
          .outcome,
      async close(id, _m, signal, now): Promise<Outcome> {
        const listed = await call("GET", `/rest/api/2/issue/${id}/transitions`, undefined, signal, now);
        if (listed.outcome.kind !== "ok") return listed.outcome;
        const transitions =
          parse<{ transitions?: { id: string; name: string }[] }>(listed.answer?.body)?.transitions ?? [];
        const transition = transitions.find((t) => t.name.toLowerCase() === o.resolveTransition.toLowerCase());
        if (!transition)
          return permanent(
            `issue ${id} has no transition named "${o.resolveTransition}" (it has: ${transitions.map((t) => t.name).join(", ") || "none"}); set resolveTransition`,
          );
        return (
          await call("POST", `/rest/api/2/issue/${id}/transitions`, { transition: { id: transition.id } }, signal, now)
        ).outcome;
      },
      async check(signal, now) {
        const me = await call("GET", "/rest/api/2/myself", undefined, signal, now);
        return me.outcome.kind !== "ok"
          ? me.outcome
          : (await call("GET", `/rest/api/2/project/${o.project}`, undefined, signal, now)).outcome;
      },
    };
  },
});
