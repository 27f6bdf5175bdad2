import { readFileSync } from "node:fs";
import { defineCommand } from "citty";
import { type ObjectRef, refKey } from "../../model/object-ref.ts";
import { explainLines, type TraceView } from "../../app/commands/explain.ts";
import { explainTarget } from "../../app/commands/explain-target.ts";

/**
 * `mon explain KIND/NAMESPACE/NAME` (issue 32): the ordered trace of what mon did with an object — detected,
 * held until when and why, suppressed by which rule, part of or folded into which incident, what was decided
 * and what each provider answered — read from the running daemon's protected diagnostics
 * (`healthCheck.diagnostics`), or with `--audit FILE` the decisions about it from the audit log. `--incident`
 * takes an incident id instead and shows every object it concerns. The object is named as kubectl names it
 * (explain-target.ts). Exits 1 on an error it names: a kind mon does not know or does not watch among them.
 */
export default defineCommand({
  meta: { name: "explain", description: "Why mon told, held or stayed silent about an object or incident." },
  args: {
    object: {
      type: "positional",
      description: "KIND/NAMESPACE/NAME, KIND/NAME or KIND (kubectl's kind names, short names, any case)",
      required: true,
    },
    name: { type: "positional", description: "NAME, after a KIND", required: false },
    namespace: { type: "string", alias: "n", description: "the namespace of KIND/NAME (default: default)" },
    url: { type: "string", description: "the daemon's health server", default: "http://127.0.0.1:8060" },
    token: { type: "string", description: "the diagnostics token (default: MON_DIAGNOSTICS_TOKEN)" },
    incident: { type: "boolean", description: "the argument is an incident id", default: false },
    audit: { type: "string", description: "read the audit log (JSON lines) instead of the daemon" },
    format: { type: "string", description: "text or json", default: "text" },
  },
  async run({ args }) {
    const fail = (message: string) => {
      process.stderr.write(`mon explain: ${message}\n`);
      process.exit(1);
    };
    let key = args.object;
    if (!args.incident) {
      const target = explainTarget(args.object, args.name, args.namespace);
      if ("error" in target) return fail(target.error);
      key = target.key;
    }
    if (args.audit) {
      let text: string;
      try {
        text = readFileSync(args.audit, "utf8");
      } catch (error) {
        return fail(`cannot read ${args.audit}: ${(error as Error).message}`);
      }
      const view = fromAudit(text, args.incident ? undefined : key, args.incident ? args.object : undefined);
      return print(view, args.format);
    }
    const token = args.token ?? process.env.MON_DIAGNOSTICS_TOKEN;
    if (!token)
      return fail("no diagnostics token: pass --token or set MON_DIAGNOSTICS_TOKEN (healthCheck.diagnostics.token)");
    const path = args.incident ? `/incidents/${encodeURIComponent(args.object)}` : `/explain/${key}`;
    let answer: Response;
    try {
      answer = await fetch(`${args.url.replace(/\/+$/, "")}${path}`, { headers: { authorization: `Bearer ${token}` } });
    } catch (error) {
      return fail(`cannot reach ${args.url}: ${(error as Error).message}`);
    }
    if (answer.status === 401) return fail("the diagnostics token was refused (401)");
    if (answer.status === 404) return fail(`no incident ${args.object}`);
    if (!answer.ok) return fail(`${args.url} answered ${answer.status}: ${(await answer.text()).slice(0, 200)}`);
    const body = (await answer.json()) as {
      object?: string;
      trace?: TraceView["entries"] | Record<string, TraceView["entries"]>;
      notWatched?: string;
      tracedSince?: string;
    };
    if (body.notWatched) {
      const kind = key.split("/")[0];
      return fail(
        `mon does not watch ${kind} objects (${body.notWatched}, see /health coverage), so it has no trace of ${key.replace("//", "/")}`,
      );
    }
    const views: TraceView[] = Array.isArray(body.trace)
      ? [
          {
            object: body.object ?? key,
            entries: body.trace,
            ...(body.tracedSince ? { tracedSince: body.tracedSince } : {}),
          },
        ]
      : Object.entries(body.trace ?? {}).map(([object, entries]) => ({ object, entries }));
    print(views, args.format);
  },
});

function print(views: readonly TraceView[], format: string): void {
  if (format === "json") return void process.stdout.write(`${JSON.stringify(views, null, 2)}\n`);
  process.stdout.write(`${explainLines(views).join("\n")}\n`);
}

/** The audit log's decisions about an object (its incidents' root or a folded subject) or one incident. */
function fromAudit(text: string, object: string | undefined, incident: string | undefined): TraceView[] {
  const entries: TraceView["entries"][number][] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    let e: Record<string, unknown>;
    try {
      e = JSON.parse(line);
    } catch {
      continue;
    }
    const root = e.root as ObjectRef | undefined;
    const subject = e.subject as ObjectRef | undefined;
    const key = (r?: ObjectRef) => (r ? refKey(r) : undefined);
    const matches = incident ? e.incidentId === incident : key(root) === object || key(subject) === object;
    if (!matches) continue;
    const why = e.skipReason ? `: ${String(e.skipReason)}` : "";
    const how = e.delivery && e.delivery !== "absent" ? ` (${String(e.delivery)})` : "";
    entries.push({
      at: String(e.time),
      step: e.decision === "skipped" ? "incident" : "decided",
      text: `${String(e.decision)}${how}${why} — ${String(e.reason)}, revision ${String(e.revision)}`,
      incident: String(e.incidentId),
    });
  }
  return [{ object: incident ?? object ?? "", entries }];
}
