import { basic } from "./_kit/auth.ts";
import * as v from "valibot";
import { shortKey } from "./_kit/keys.ts";
import { jsonApi, parseJson, truncate } from "./_kit/http.ts";
import { defineTracker } from "./_kit/tracker.ts";

const Options = v.object({
  instance: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[a-z0-9-]+$/, "must be the instance name (the part before .service-now.com)"),
      v.description("Instance name."),
    ),
  ),
  url: v.optional(v.pipe(v.string(), v.url(), v.description("Instance URL; overrides `instance`."))),
  username: v.pipe(v.string(), v.minLength(1), v.description("Integration user.")),
  password: v.pipe(v.string(), v.minLength(1), v.description("Its password (a credential: ${file:/path}).")),
  table: v.optional(
    v.pipe(v.string(), v.regex(/^[a-z0-9_]+$/, "must be a table name"), v.description("Table.")),
    "incident",
  ),
  assignmentGroup: v.optional(v.pipe(v.string(), v.description("assignment_group sys_id or name."))),
  resolvedState: v.optional(v.pipe(v.string(), v.description("State value of a resolved incident.")), "6"),
  closeCode: v.optional(v.pipe(v.string(), v.description("close_code when resolving.")), "Solved (Permanently)"),
});

/**
 * ServiceNow Table API (providers.md `serviceNow`): one incident per mon incident with `correlation_id` =
 * its key (≤ 100 characters, hashed beyond) and `correlation_display = mon`, found with
 * `correlation_id=<key>^active=true`. Updates add `work_notes`; the resolve sets the resolved state, close
 * code and notes. Basic auth. `check` reads one record of the table.
 */
export default defineTracker({
  name: "serviceNow",
  title: "ServiceNow",
  guide: {
    credential: "An integration user with the itil role (incident write); its password.",
    oneOf: [["instance", "url"]],
  },
  options: v.pipe(
    Options,
    v.check((o) => Boolean(o.instance) !== Boolean(o.url), "set instance or url"),
  ),
  credentials: ["password"],
  api(o, http) {
    const base = `${(o.url ?? `https://${o.instance}.service-now.com`).replace(/\/+$/, "")}/api/now/table/${o.table}`;
    const headers = {
      "content-type": "application/json",
      accept: "application/json",
      authorization: basic(o.username, o.password),
    };
    const call = jsonApi(http, base, headers);
    const sysId = (body: string | undefined): string | undefined => {
      const result = parseJson<{ result?: unknown }>(body)?.result;
      const record = (Array.isArray(result) ? result[0] : result) as { sys_id?: unknown } | undefined;
      return typeof record?.sys_id === "string" ? record.sys_id : undefined;
    };
    return {
      async find(key, signal, now) {
        const query = new URLSearchParams({
          sysparm_query: `correlation_id=${shortKey(key, 100)}^active=true`,
          sysparm_fields: "sys_id",
          sysparm_limit: "1",
        });
        const { outcome, answer } = await call("GET", `?${query}`, undefined, signal, now);
        const id = outcome.kind === "ok" ? sysId(answer?.body) : undefined;
        return { outcome, ...(id ? { id } : {}) };
      },
      async create(m, signal, now) {
        const body = {
          short_description: truncate(m.title, 160, "…"),
          description: truncate(m.text, 4_000),
          correlation_id: shortKey(m.dedupKey, 100),
          correlation_display: "mon",
          urgency: m.mode === "page" ? "1" : "2",
          impact: m.mode === "page" ? "1" : "2",
          ...(o.assignmentGroup ? { assignment_group: o.assignmentGroup } : {}),
        };
        const { outcome, answer } = await call("POST", "", body, signal, now);
        const id = sysId(answer?.body);
        return { outcome, ...(id ? { id } : {}) };
      },
      comment: async (id, m, signal, now) =>
        (await call("PATCH", `/${id}`, { work_notes: truncate(m.text, 4_000) }, signal, now)).outcome,
      close: async (id, m, signal, now) =>
        (
          await call(
            "PATCH",
            `/${id}`,
            { state: o.resolvedState, close_code: o.closeCode, close_notes: truncate(m.text, 4_000) },
            signal,
            now,
          )
        ).outcome,
      check: async (signal, now) =>
        (await call("GET", "?sysparm_limit=1&sysparm_fields=sys_id", undefined, signal, now)).outcome,
    };
  },
});
