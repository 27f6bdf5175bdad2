import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { mineOf, type Place, unplacedOf } from "./placing.ts";
import type { Told } from "./replay.ts";

const place = (namespace: string): Place => ({ namespace, nodePrefix: namespace });
const told = (t: number, action: string, incidentId: string, text: string, covers?: string[]): Told => ({
  t,
  action,
  incidentId,
  reason: "",
  text,
  ...(covers ? { covers } : {}),
});
/** A roll-up as src/notify/summary.ts writes it: title, note, one bullet per covered incident in order. */
const rollUp = (t: number, lines: readonly [id: string, line: string][]): Told =>
  told(
    t,
    "announce",
    `roll-up@${t}`,
    [`🟠 ${lines.length} new problems`, "They started together.", ...lines.map(([, l]) => `• ${l}`)].join("\n"),
    lines.map(([id]) => id),
  );

describe("which story a message is about, when stories share a cluster", () => {
  const crash = place("crash-fixed-in-place");
  const refused = place("dependency-refused");
  const database = place("in-cluster-database-refused");
  const known = [crash, refused, database];

  test("an in-cluster host names its namespace: a roll-up beside another story's workloads does not make it theirs", () => {
    const conversation = [
      rollUp(62, [
        ["Deployment/crash-fixed-in-place/api", "deployment crash-fixed-in-place/api: CrashLoopBackOff"],
        [
          "Endpoint//orders-db.dependency-refused:5432",
          "endpoint orders-db.dependency-refused:5432: unreachable (deployment dependency-refused/checkout)",
        ],
        ["StatefulSet/in-cluster-database-refused/postgres", "statefulset in-cluster-database-refused/postgres"],
      ]),
      told(
        258,
        "resolve",
        "Endpoint//orders-db.dependency-refused:5432",
        "✅ Resolved: endpoint orders-db.dependency-refused:5432",
      ),
    ];
    expect(mineOf(conversation, crash, known).map((m) => m.covers ?? m.incidentId)).toEqual([
      ["Deployment/crash-fixed-in-place/api"],
    ]);
    expect(mineOf(conversation, database, known).map((m) => m.covers ?? m.incidentId)).toEqual([
      ["StatefulSet/in-cluster-database-refused/postgres"],
    ]);
    expect(mineOf(conversation, refused, known).map((m) => m.covers ?? m.incidentId)).toEqual([
      ["Endpoint//orders-db.dependency-refused:5432"],
      "Endpoint//orders-db.dependency-refused:5432",
    ]);
    expect(unplacedOf(conversation, known)).toEqual([]);
  });

  test("an outside host and a shared error are the story's whose workloads their own line names, resolve included", () => {
    const trust = place("trust-silenced");
    const conversation = [
      rollUp(3, [
        ["ConfigMap/crash-fixed-in-place/api-config", "configmap crash-fixed-in-place/api-config: missing"],
        ["Endpoint//203.0.113.50:5432", "endpoint 203.0.113.50:5432: unreachable (deployment trust-silenced/sync-b)"],
      ]),
      told(40, "announce", "Error//FATAL: password", 'error "FATAL: password…" in deployment trust-silenced/sync-b'),
      told(300, "resolve", "Endpoint//203.0.113.50:5432", "✅ Resolved: endpoint 203.0.113.50:5432"),
      told(301, "resolve", "Error//FATAL: password", "✅ Resolved"),
    ];
    const all = [...known, trust];
    expect(mineOf(conversation, trust, all).map((m) => m.t)).toEqual([3, 40, 300, 301]);
    expect(mineOf(conversation, crash, all).map((m) => m.covers)).toEqual([
      ["ConfigMap/crash-fixed-in-place/api-config"],
    ]);
    expect(unplacedOf(conversation, all)).toEqual([]);
    // Without the trust story's place known, what mon says of it is about no story of this run.
    expect(unplacedOf(conversation, known).map((m) => m.t)).toEqual([40, 300, 301]);
  });

  test("property: a nameless incident in a roll-up of any order is the story's its line names, and no other's", () => {
    const names = ["a", "b", "c", "d"];
    fc.assert(
      fc.property(
        fc.shuffledSubarray(names, { minLength: 1 }),
        fc.array(fc.constantFrom(...names), { minLength: 1, maxLength: 6 }),
        (withWorkloads, hostsOf) => {
          const places = names.map(place);
          const lines: [string, string][] = [
            ...withWorkloads.map((n): [string, string] => [`Deployment/${n}/api`, `deployment ${n}/api: crash`]),
            ...hostsOf.map((n, k): [string, string] => [
              `Endpoint//198.51.100.${k}:443`,
              `endpoint 198.51.100.${k}:443: unreachable (deployment ${n}/web)`,
            ]),
          ];
          const conversation = [
            rollUp(1, lines),
            ...hostsOf.map((_, k) => told(9, "resolve", `Endpoint//198.51.100.${k}:443`, "✅ Resolved")),
          ];
          for (const p of places) {
            const ids = mineOf(conversation, p, places).flatMap((m) => m.covers ?? [m.incidentId]);
            const expected = [
              ...lines.filter(([, l]) => l.includes(` ${p.namespace}/`)).map(([id]) => id),
              ...hostsOf.flatMap((n, k) => (n === p.namespace ? [`Endpoint//198.51.100.${k}:443`] : [])),
            ];
            expect(ids).toEqual(expected);
          }
          expect(unplacedOf(conversation, places)).toEqual([]);
        },
      ),
    );
  });
});
