import * as v from "valibot";
import type { Message } from "../../model/message.ts";
import { defineProvider, type ProviderDefinition, type ProviderGuide, nowOf } from "./define.ts";
import { sendAndClassify } from "./http.ts";

/**
 * The table-driven webhook pager (providers.md 5 "status + dedup field"): one JSON POST per incident message
 * to a URL, the vendor's status field saying trigger / update / resolve and its dedup field carrying the
 * incident's key, so repeats update one alert and the resolve closes it. Each vendor file gives its options,
 * URL, headers and body; this builds the definition. Summaries and notices never reach a pager (route/).
 */
export function definePager<S extends v.GenericSchema>(spec: {
  readonly name: string;
  readonly title: string;
  readonly guide?: ProviderGuide;
  readonly options: S;
  readonly credentials: readonly string[];
  readonly url: (options: v.InferOutput<S>) => string;
  readonly headers?: (options: v.InferOutput<S>) => Record<string, string>;
  readonly body: (message: Message, options: v.InferOutput<S>, cluster: string) => unknown;
  /** A read-only call that proves the credential (`mon lint --check`): its path under `url`'s origin and method GET. */
  readonly check?: (options: v.InferOutput<S>) => string;
}): Readonly<ProviderDefinition<S>> {
  return defineProvider({
    name: spec.name,
    kind: "paging",
    title: spec.title,
    ...(spec.guide ? { guide: spec.guide } : {}),
    threading: "dedup_key",
    options: spec.options,
    credentials: spec.credentials,
    create(options, deps) {
      return {
        async send(message, context) {
          const request = {
            url: spec.url(options),
            headers: { "content-type": "application/json", ...spec.headers?.(options) },
            body: JSON.stringify(spec.body(message, options, deps.clusterName)),
            signal: context.signal,
          };
          return (await sendAndClassify(deps.http, request, context.now)).outcome;
        },
        ...(spec.check
          ? {
              check: async (signal: AbortSignal) =>
                (
                  await sendAndClassify(
                    deps.http,
                    { method: "GET", url: spec.check!(options), headers: { ...spec.headers?.(options) }, signal },
                    nowOf(deps),
                  )
                ).outcome,
            }
          : {}),
      };
    },
  });
}

/** The one tier → vendor severity map (severity.ts), for the pagers that import it from here. */
export { severityOf } from "./severity.ts";

/** A webhook URL option that is a credential (the token is in the URL). */
export const CredentialUrl = (what: string) =>
  v.pipe(v.string(), v.url(), v.description(`${what} (a credential: \${file:/path}).`));
