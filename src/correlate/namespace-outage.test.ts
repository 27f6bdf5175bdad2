import { describe, expect, test } from "bun:test";
import type { Finding } from "../model/finding.ts";
import type { IncidentDraft } from "../model/incident.ts";
import { inventoryOf, workload } from "../testing/inventory.ts";
import fc from "fast-check";
import { AT_ONCE_MS, foldNamespaceOutages, NAMESPACE_OUTAGE_MIN_WORKLOADS } from "./namespace-outage.ts";

const draft = (name: string, since = 0): IncidentDraft => {
  const f: Finding = {
    key: `CrashLoopBackOff/Pod/shop/${name}-1`,
    reason: "CrashLoopBackOff",
    object: { kind: "Pod", namespace: "shop", name: `${name}-1` },
    tier: "medium",
    summary: "crash",
    evidence: [],
    since,
  };
  return { root: { kind: "Deployment", namespace: "shop", name }, rootReason: "CrashLoopBackOff", findings: [f] };
};
const shop = (...names: string[]) => inventoryOf(...names.map((n) => workload("shop", n).deployment));
const none = () => false;
const roots = (drafts: IncidentDraft[]) => drafts.map((d) => `${d.root.kind}/${d.root.name}`);

describe("namespace outage (spec 1.3)", () => {
  test("most workloads of a namespace failing at once are one incident rooted at the namespace", () => {
    const out = foldNamespaceOutages([draft("a"), draft("b"), draft("c")], shop("a", "b", "c", "d"), none);
    expect(roots(out)).toEqual(["Namespace/shop"]);
    expect(out[0]).toMatchObject({
      rootReason: "NamespaceOutage",
      affected: [{ name: "a" }, { name: "b" }, { name: "c" }],
    });
    expect(out[0]!.findings).toHaveLength(3);
    expect(out[0]!.folded?.map((f) => [f.reason, f.root.name])).toEqual([
      ["mass_failure", "a"],
      ["mass_failure", "b"],
      ["mass_failure", "c"],
    ]);
  });

  test("two failing, or three of eight, stay incidents of their own", () => {
    expect(roots(foldNamespaceOutages([draft("a"), draft("b")], shop("a", "b"), none))).toEqual([
      "Deployment/a",
      "Deployment/b",
    ]);
    expect(
      roots(
        foldNamespaceOutages([draft("a"), draft("b"), draft("c")], shop("a", "b", "c", "d", "e", "f", "g", "h"), none),
      ),
    ).toHaveLength(3);
  });

  test("while the outage is open a newly failing workload joins it; one told on its own before keeps its incident", () => {
    const open = new Set(["Namespace//shop", "Deployment/shop/a"]);
    const out = foldNamespaceOutages(
      [draft("a"), draft("b"), draft("e")],
      shop("a", "b", "c", "d", "e", "f", "g", "h"),
      (id) => open.has(id),
    );
    expect(roots(out)).toEqual(["Deployment/a", "Namespace/shop"]);
    expect(out[1]!.affected?.map((r) => r.name)).toEqual(["b", "e"]);
  });

  test("failures already there when mon began watching are never an outage 'at once', however many and whenever they began (issue 52 item 1)", () => {
    const started = 10 * 3_600_000;
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 24 * 3_600_000 }), { minLength: 3, maxLength: 12 }),
        fc.integer({ min: 0, max: 3 }),
        (agesMs, extra) => {
          const names = agesMs.map((_, i) => `w${i}`);
          const drafts = agesMs.map((age, i) => draft(names[i]!, started - age));
          const out = foldNamespaceOutages(
            drafts,
            shop(...names, ...Array.from({ length: extra }, (_, i) => `ok${i}`)),
            none,
            started,
          );
          expect(roots(out)).toEqual(names.map((n) => `Deployment/${n}`));
        },
      ),
    );
  });

  test("only failures that began within AT_ONCE_MS of one another make the outage; the others stay their own", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3 * AT_ONCE_MS }), { minLength: 3, maxLength: 10 }), (onsets) => {
        const names = onsets.map((_, i) => `w${i}`);
        const out = foldNamespaceOutages(
          onsets.map((t, i) => draft(names[i]!, t)),
          shop(...names),
          none,
          0,
        );
        const outage = out.find((d) => d.root.kind === "Namespace");
        if (!outage) return;
        const inside = outage.findings.map((f) => f.since);
        expect(Math.max(...inside) - Math.min(...inside)).toBeLessThanOrEqual(AT_ONCE_MS);
        expect(outage.affected!.length).toBeGreaterThanOrEqual(NAMESPACE_OUTAGE_MIN_WORKLOADS);
      }),
    );
  });
});
