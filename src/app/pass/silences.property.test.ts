import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { stringify } from "yaml";
import { emptyLifecycle, type LifecycleState } from "../../incident/lifecycle.ts";
import { suppressionOf } from "../../incident/suppress.ts";
import { silencedBy } from "../../incident/silences.ts";
import type { KubeObject } from "../../model/inventory.ts";
import { parseConfig } from "../../testing/config.ts";
import { inventoryOf, node, pod, workload } from "../../testing/inventory.ts";
import { runPass } from "./pipeline.ts";
import { rulesFor, silenceSources } from "./rules.ts";

/**
 * Silences hold (issue 41, item 1): for any configuration of silence rules and any cluster, a finding a silence
 * matches never reaches a provider — neither as its own incident nor inside an incident another finding
 * carries out — and `mon explain` names the rule that matched at its file and line.
 */
const T0 = Date.parse("2026-01-01T01:00:00Z");
const NAMESPACES = ["shop", "batch", "ops"];
const crashing = {
  restartCount: 5,
  state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 5m0s" } },
  lastState: {
    terminated: { exitCode: 1, reason: "Error", message: "panic: db refused", finishedAt: "2026-01-01T00:59:00Z" },
  },
};
const pulling = { state: { waiting: { reason: "ImagePullBackOff", message: "Back-off pulling image" } } };

const workloadArb = fc.record({
  namespace: fc.constantFrom(...NAMESPACES),
  failure: fc.constantFrom("crash", "pull", "none"),
  node: fc.constantFrom("n1", "n2"),
  unavailable: fc.boolean(),
});
const ruleArb = fc
  .record(
    {
      namespaces: fc.uniqueArray(fc.constantFrom(...NAMESPACES), { minLength: 1, maxLength: 2 }),
      reasons: fc.uniqueArray(
        fc.constantFrom("CrashLoopBackOff", "ImagePullBackOff", "WorkloadUnavailable", "NodeLost", "PodNodeLost"),
        { minLength: 1, maxLength: 2 },
      ),
      podNamePatterns: fc.constantFrom(["^w0-"], ["^w1-"], ["-p0$"]),
      containerMessages: fc.constantFrom(["db refused"], ["pulling"]),
    },
    { requiredKeys: [] },
  )
  .filter((r) => Object.keys(r).length > 0);

/** The cluster: nodes n1 (lost or not) and n2, and Deployments w<i> with one pod each. */
function cluster(
  workloads: readonly { namespace: string; failure: string; node: string; unavailable: boolean }[],
  lost: boolean,
): KubeObject[] {
  return [
    node("n1", lost ? "Unknown" : "True", "2026-01-01T00:50:00Z"),
    node("n2", "True"),
    ...workloads.flatMap((w, i) => {
      const { deployment, replicaSet } = workload(w.namespace, `w${i}`, w.unavailable ? 0 : 2);
      const status = w.failure === "crash" ? crashing : w.failure === "pull" ? pulling : undefined;
      return [
        w.unavailable
          ? {
              ...deployment,
              status: {
                replicas: 1,
                availableReplicas: 0,
                conditions: [{ type: "Available", status: "False", lastTransitionTime: "2026-01-01T00:40:00Z" }],
              },
            }
          : deployment,
        replicaSet,
        pod(w.namespace, `w${i}-p0`, { nodeName: w.node, owner: replicaSet, ...(status ? { status } : {}) }),
      ];
    }),
  ];
}

describe("silences hold for any configuration and any incident (issue 41, item 1)", () => {
  test("a finding a silence matches never reaches a provider, and explain names its rule at file:line", () => {
    fc.assert(
      fc.property(
        fc.array(workloadArb, { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        fc.array(ruleArb, { minLength: 1, maxLength: 3 }),
        (workloads, lost, silences) => {
          const text = stringify({ alert: { webhook: { url: "http://127.0.0.1:9/hook" } }, silences });
          const loaded = parseConfig(text, "cfg.yaml", {});
          const rules = rulesFor(loaded.config, "community", [], silenceSources(loaded));
          const inventory = inventoryOf(...cluster(workloads, lost));
          let state: LifecycleState = emptyLifecycle();
          // Past every hold: at once, 5 and 10 minutes on.
          for (const at of [T0, T0 + 300_000, T0 + 600_000]) {
            const result = runPass(inventory, state, at, "prod", {}, undefined, rules, { explain: true });
            expect(result.panicked).toBeUndefined();
            for (const d of result.decisions)
              for (const f of d.incident.findings)
                expect(
                  `${d.action} ${d.incident.id}: ${f.key} ${suppressionOf(f, inventory, rules, at) ?? "told"}`,
                ).toEndWith("told");
            for (const { message } of result.messages)
              for (const f of message.findings)
                expect(silencedBy(rules.prepared.silences, { ...f, key: "", since: 0 })).toBeUndefined();
            // Every silenced finding's trace names its rule where it is written.
            for (const [key, entries] of result.traces ?? []) {
              for (const e of entries.filter((x) => x.step === "suppressed" && x.text.includes("silenced by"))) {
                const line = e.text.match(/silenced by cfg\.yaml:(\d+)/)?.[1];
                expect(`${key}: ${e.text}`).toMatch(/silenced by cfg\.yaml:\d+/);
                const rule = loaded.config.silences.findIndex(
                  (_, i) => loaded.lineOf(`silences.${i}`) === Number(line),
                );
                expect(rule).toBeGreaterThanOrEqual(0);
              }
            }
            state = result.state;
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
