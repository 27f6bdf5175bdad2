import { describe, expect, test } from "bun:test";
import type { Finding } from "../model/finding.ts";
import type { IncidentDraft } from "../model/incident.ts";
import { inventoryOf, workload } from "../testing/inventory.ts";
import fc from "fast-check";
import { foldNamespaceOutages } from "./namespace-outage.ts";

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

  test("workloads already failing in mon's baseline pass are never an outage 'at once', in whichever pass they are due (issue 52 item 1)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 3, max: 12 }),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 5 }),
        (failing, healthy, after) => {
          const names = Array.from({ length: failing }, (_, i) => `w${i}`);
          const later = Array.from({ length: after }, (_, i) => `n${i}`);
          const inventory = shop(...names, ...later, ...Array.from({ length: healthy }, (_, i) => `ok${i}`));
          const present = names.map((n) => draft(n));
          const fresh = later.map((n) => draft(n));
          // What the baseline pass found failing (its pods), whatever their findings' times say.
          const failingAtStart = new Set(present.map((d) => `Pod/shop/${d.root.name}-1`));
          // The baseline pass itself, and any later pass the present failures are first due in (a hold, a log).
          expect(roots(foldNamespaceOutages(present, inventory, none, failingAtStart))).toEqual(
            names.map((n) => `Deployment/${n}`),
          );
          const due = foldNamespaceOutages([...present, ...fresh], inventory, none, failingAtStart);
          const total = failing + after + healthy;
          // Only what was healthy at the start counts toward an outage, and only that joins it.
          if (after >= 3 && after * 2 > total) {
            expect(roots(due)).toContain("Namespace/shop");
            expect(due.find((d) => d.root.kind === "Namespace")!.affected?.map((r) => r.name)).toEqual(later);
          } else expect(roots(due)).not.toContain("Namespace/shop");
          for (const n of names) expect(roots(due)).toContain(`Deployment/${n}`);
          // The same workloads healthy at the start and failing together later are the namespace's outage, when
          // most of it fails (however long their pods ran before: a flood after the start is one).
          if (failing * 2 > total)
            expect(roots(foldNamespaceOutages(present, inventory, none, new Set()))).toEqual(["Namespace/shop"]);
        },
      ),
    );
  });
});
