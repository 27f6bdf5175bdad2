import { permanent } from "./_kit/outcome.ts";
import * as v from "valibot";
import type { Outcome } from "../model/dispatch.ts";
import { classifyStatus, exchangeJson, parseJson, truncate } from "./_kit/http.ts";
import { defineTracker, marker } from "./_kit/tracker.ts";
import type { HttpAnswer, HttpClient } from "../outbound/client.ts";

const Options = v.object({
  apiKey: v.pipe(
    v.string(),
    v.minLength(8),
    v.description("Personal API key, sent as `Authorization: <key>` (a credential: ${file:/path})."),
  ),
  teamId: v.pipe(v.string(), v.minLength(1), v.description("Team id.")),
  resolvedStateId: v.optional(
    v.pipe(
      v.string(),
      v.description("Workflow state that closes it; default: the team's first state of type completed."),
    ),
  ),
  url: v.optional(v.pipe(v.string(), v.url(), v.description("GraphQL endpoint.")), "https://api.linear.app/graphql"),
});

/**
 * Linear (providers.md `linear`, GraphQL): one issue per incident with the key marker in its description,
 * found by `issues(filter: {team, description contains, state not completed/canceled})`. Updates add
 * comments; the resolve comments and moves the issue to `resolvedStateId` (or the team's first completed
 * state). GraphQL errors come in a 200 body: `RATELIMITED` waits, others are permanent. `check` asks `viewer`.
 */
export default defineTracker({
  name: "linear",
  title: "Linear",
  guide: { credential: "Settings → Account → Security & access → Personal API keys." },
  options: Options,
  credentials: ["apiKey"],
  api(o, http) {
    const gql = (query: string, variables: Record<string, unknown>, signal: AbortSignal, now: number) =>
      graphql(http, o.url, o.apiKey, query, variables, signal, now);
    return {
      async find(key, signal, now) {
        const r = await gql(
          `query($team: ID!, $marker: String!) { issues(first: 1, filter: { team: { id: { eq: $team } }, description: { contains: $marker }, state: { type: { nin: ["completed", "canceled"] } } }) { nodes { id } } }`,
          { team: o.teamId, marker: marker(key) },
          signal,
          now,
        );
        const id = (r.data as { issues?: { nodes?: { id?: string }[] } } | undefined)?.issues?.nodes?.[0]?.id;
        return { outcome: r.outcome, ...(id ? { id } : {}) };
      },
      async create(m, signal, now) {
        const r = await gql(
          `mutation($input: IssueCreateInput!) { issueCreate(input: $input) { success issue { id } } }`,
          {
            input: {
              teamId: o.teamId,
              title: truncate(m.title, 250),
              description: `${truncate(m.markdown, 50_000)}\n\n${marker(m.dedupKey)}`,
              priority: m.mode === "page" ? 1 : 3,
            },
          },
          signal,
          now,
        );
        const id = (r.data as { issueCreate?: { issue?: { id?: string } } } | undefined)?.issueCreate?.issue?.id;
        return { outcome: r.outcome, ...(id ? { id } : {}) };
      },
      comment: async (id, m, signal, now) =>
        (
          await gql(
            `mutation($input: CommentCreateInput!) { commentCreate(input: $input) { success } }`,
            { input: { issueId: id, body: truncate(m.markdown, 50_000) } },
            signal,
            now,
          )
        ).outcome,
      async close(id, _m, signal, now): Promise<Outcome> {
        let state = o.resolvedStateId;
        if (!state) {
          const r = await gql(
            `query($team: String!) { team(id: $team) { states { nodes { id type position } } } }`,
            { team: o.teamId },
            signal,
            now,
          );
          if (r.outcome.kind !== "ok") return r.outcome;
          const nodes =
            (r.data as { team?: { states?: { nodes?: { id: string; type: string; position: number }[] } } } | undefined)
              ?.team?.states?.nodes ?? [];
          state = nodes.filter((n) => n.type === "completed").sort((a, b) => a.position - b.position)[0]?.id;
          if (!state) return permanent(`team ${o.teamId} has no completed state; set resolvedStateId`, "rejected");
        }
        return (
          await gql(
            `mutation($id: String!, $input: IssueUpdateInput!) { issueUpdate(id: $id, input: $input) { success } }`,
            { id, input: { stateId: state } },
            signal,
            now,
          )
        ).outcome;
      },
      check: async (signal, now) => (await gql(`query { viewer { id } }`, {}, signal, now)).outcome,
    };
  },
});

/** One GraphQL call: the HTTP status first, then `errors` in the body (`RATELIMITED` waits). */
async function graphql(
  http: HttpClient,
  url: string,
  apiKey: string,
  query: string,
  variables: Record<string, unknown>,
  signal: AbortSignal,
  now: number,
): Promise<{ outcome: Outcome; data?: unknown }> {
  const request = { url, headers: { authorization: apiKey }, body: { query, variables }, signal };
  return exchangeJson(http, request, (answer) => read(answer, now));
}

/** A GraphQL answer: the HTTP status first, then `errors` in the body (`RATELIMITED` waits). */
function read(answer: HttpAnswer, now: number): { outcome: Outcome; data?: unknown } {
  const status = classifyStatus(answer, now);
  const body = parseJson<{ data?: unknown; errors?: { message?: string; extensions?: { code?: string } }[] }>(
    answer.body,
  );
  if (!body) return { outcome: status };
  const error = body.errors?.[0];
  if (error?.extensions?.code === "RATELIMITED") return { outcome: { kind: "rateLimited" } };
  if (status.kind !== "ok") return { outcome: status };
  if (error) return { outcome: permanent(`graphql: ${String(error.message ?? "error").slice(0, 200)}`) };
  return { outcome: status, data: body.data };
}
