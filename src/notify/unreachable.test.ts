import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { apiUnreachable } from "../detect/control-plane.ts";
import { renderUnreachable } from "./unreachable.ts";

const SINCE = Date.UTC(2026, 11, 3, 2, 0, 0);

describe("an API server outage told by the replica that led last (issue 53)", () => {
  const thread = (term: number, failing?: string[]) => {
    const finding = apiUnreachable(
      { since: SINCE, error: "cannot connect (connection refused)", ...(failing ? { failing } : {}) },
      SINCE + 60_000,
    );
    return { term, finding, nextSteps: ["kubectl get --raw='/readyz?verbose'", "Check etcd."] };
  };

  test("announce pages with its next steps; the resolve, in the same thread, names the window nothing was seen in", () => {
    const announce = renderUnreachable("prod", thread(4), SINCE + 61_000);
    expect(announce).toMatchObject({
      incidentId: "api-unreachable@4",
      action: "announce",
      mark: "page",
      mode: "page",
      tier: "critical",
      reason: "APIServerUnreachable",
      title: "API server of prod unreachable since 02:00:00 UTC",
      dedupKey: "mon-prod-api-unreachable-4",
      nextSteps: ["kubectl get --raw='/readyz?verbose'", "Check etcd."],
    });
    expect(announce.text).toStartWith(
      "🔴 the API server of prod is unreachable since 02:00:00 UTC (1 min 1 s): cannot connect",
    );
    expect(announce.markdown).toContain("`kubectl get --raw='/readyz?verbose'`");
    const resolve = renderUnreachable("prod", { ...thread(4), to: SINCE + 140_000 }, SINCE + 141_000);
    expect([resolve.incidentId, resolve.action, resolve.mark, resolve.dedupKey, resolve.id]).toEqual([
      "api-unreachable@4",
      "resolve",
      "resolved",
      "mon-prod-api-unreachable-4",
      "api-unreachable@4#2",
    ]);
    expect(resolve.text).toContain("unreachable from 02:00:00 to 02:02:20 UTC (2 min 20 s)");
    expect(resolve.nextSteps).toBeUndefined();
    const stopped = renderUnreachable("prod", { ...thread(4), stopped: true }, SINCE + 200_000);
    expect([stopped.action, stopped.incidentId]).toEqual(["resolve", "api-unreachable@4"]);
    expect(stopped.text).toContain("mon stopped on prod while the API server did not answer");
  });

  test("etcd named by the server's /readyz is the reason given", () => {
    expect(renderUnreachable("prod", thread(1, ["etcd"]), SINCE + 61_000).text).toContain(
      "it answers but does not serve, its /readyz reports etcd failing",
    );
  });

  test("property: one thread per cluster and term — every message of an outage shares it, another term never does", () => {
    fc.assert(
      fc.property(fc.nat(1000), fc.nat(1000), fc.string({ minLength: 1 }), (t1, t2, cluster) => {
        const a = renderUnreachable(cluster, thread(t1), SINCE + 61_000);
        const b = renderUnreachable(cluster, { ...thread(t1), to: SINCE + 90_000 }, SINCE + 90_000);
        const c = renderUnreachable(cluster, thread(t2), SINCE + 61_000);
        expect([b.incidentId, b.dedupKey]).toEqual([a.incidentId, a.dedupKey]);
        expect(a.id).not.toBe(b.id);
        expect(c.dedupKey === a.dedupKey).toBe(t1 === t2);
      }),
    );
  });
});
