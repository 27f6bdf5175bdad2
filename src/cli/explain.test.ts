import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../testing/cli.ts";

const home = mkdtempSync(join(tmpdir(), "mon-explain-cli-"));

/** Audit entries as docs/audit.md documents them (one JSON object per line). */
const entry = (fields: Record<string, unknown>) =>
  JSON.stringify({
    time: "2026-11-27T09:00:00.000Z",
    cluster: "prod",
    delivery: "absent",
    reason: "CrashLoopBackOff",
    tier: "medium",
    mode: "notify",
    revision: 1,
    dedupKey: "k",
    findings: 1,
    news: [],
    ...fields,
  });

describe("mon explain (issue 32)", () => {
  test("--audit reads the decisions about an object from the audit log: its own incidents and the ones it was folded into", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mon-audit-"));
    const log = join(dir, "audit.jsonl");
    writeFileSync(
      log,
      [
        entry({
          decision: "announced",
          incidentId: "Deployment/shop/api",
          root: { kind: "Deployment", namespace: "shop", name: "api" },
        }),
        entry({
          decision: "skipped",
          skipReason: "node_inhibition",
          incidentId: "Node//n3",
          root: { kind: "Node", name: "n3" },
          reason: "NodeLost",
          subject: { kind: "Deployment", namespace: "shop", name: "web" },
        }),
        "not json",
        entry({
          decision: "resolved",
          incidentId: "Deployment/shop/api",
          root: { kind: "Deployment", namespace: "shop", name: "api" },
          revision: 2,
        }),
      ].join("\n"),
    );
    const api = await runCli(["explain", "Deployment/shop/api", "--audit", log], { home });
    expect(api.code).toBe(0);
    expect(api.stdout.split("\n").slice(0, 3)).toEqual([
      "Deployment/shop/api",
      "  09:00:00  decided    announced — CrashLoopBackOff, revision 1",
      "  09:00:00  decided    resolved — CrashLoopBackOff, revision 2",
    ]);
    const web = await runCli(["explain", "Deployment/shop/web", "--audit", log], { home });
    expect(web.stdout).toContain("incident   skipped: node_inhibition — NodeLost, revision 1");
  });

  test("without a token it says how to give one; an unreachable daemon is named", async () => {
    const none = await runCli(["explain", "Pod/shop/api-1"], { home });
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      "mon explain: no diagnostics token: pass --token or set MON_DIAGNOSTICS_TOKEN (healthCheck.diagnostics.token)\n",
    );
    const down = await runCli(["explain", "Pod/shop/api-1", "--url", "http://127.0.0.1:9", "--token", "t"], { home });
    expect(down.code).toBe(1);
    expect(down.stderr).toStartWith("mon explain: cannot reach http://127.0.0.1:9:");
  });
});
