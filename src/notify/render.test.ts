import { describe, expect, test } from "bun:test";
import type { Action, Decision } from "../model/decision.ts";
import type { Incident } from "../model/incident.ts";
import { duration, renderDecision, STATUS_EMOJI } from "./render.ts";

const EMOJI = Object.values(STATUS_EMOJI);
function decision(action: Action, mode: Incident["mode"], extra: Partial<Incident> = {}): Decision {
  const incident: Incident = {
    id: "Deployment/shop/api",
    root: { kind: "Deployment", namespace: "shop", name: "api" },
    rootReason: "CrashLoopBackOff",
    tier: mode === "page" ? "critical" : mode === "digest" ? "normal" : "medium",
    mode,
    findings: [
      {
        key: "k",
        reason: "CrashLoopBackOff",
        object: { kind: "Pod", namespace: "shop", name: "api-1" },
        tier: "medium",
        summary: 'exit 1; last output: "postgres://app:hunter2@db:5432/x refused"',
        evidence: [{ label: "token", value: "Authorization: Bearer abcdefghijklmnop" }],
        since: 0,
      },
    ],
    openedAt: 0,
    phase: action === "resolve" ? "resolved" : "open",
    resolvedAt: action === "resolve" ? 754_000 : undefined,
    told: [],
    dedupKey: "mon-prod-deployment-shop-api-notify",
    revision: 1,
    ...extra,
  };
  return { action, incident, news: action === "update" ? ["now affects 2 pods: shop/p1, shop/p2"] : [], at: 754_000 };
}

describe("renderDecision (spec 3.2 status emoji, spec 6.8 evidence)", () => {
  const cases: [Action, Incident["mode"], string][] = [
    ["announce", "page", "🔴"],
    ["announce", "notify", "🟠"],
    ["update", "notify", "🟠"],
    ["announce", "digest", "🔵"],
    ["resolve", "page", "✅"],
    ["resolve", "notify", "✅"],
  ];
  for (const [action, mode, emoji] of cases) {
    test(`${action} of a ${mode} incident starts with ${emoji} and contains no other status emoji`, () => {
      const { message, openedResolved } = renderDecision(decision(action, mode), "prod");
      for (const text of [message.text, message.markdown, ...(openedResolved ? [openedResolved.text] : [])]) {
        const first = Array.from(text)[0] ?? "";
        expect(EMOJI).toContain(first);
        expect(EMOJI.filter((e) => text.includes(e))).toEqual([first]);
      }
      expect(message.text.startsWith(emoji)).toBe(true);
    });
  }

  test("red is reserved for paging incidents", () => {
    for (const mode of ["notify", "digest"] as const)
      expect(renderDecision(decision("announce", mode), "").message.text).not.toContain("🔴");
  });

  test("a failure's length counts from its onset, and a late announcement says why (issue 29.3)", () => {
    // Began at 0, told after its 2-minute hold at 120 s, resolved at 150 s.
    const held = decision("resolve", "notify", {
      onsetAt: 0,
      openedAt: 120_000,
      resolvedAt: 150_000,
      findings: [{ ...decision("resolve", "notify").incident.findings[0]!, holdMs: 120_000 }],
    });
    expect(renderDecision(held, "prod").message.text).toEndWith(
      "Was blamed on deployment shop/api (CrashLoopBackOff); open 2 min 30 s; announced 2 min after it began, after its 2 min hold.",
    );
    // Told within seconds of its onset: no explanation needed.
    const prompt = decision("resolve", "notify", { onsetAt: 0, openedAt: 5_000, resolvedAt: 65_000 });
    expect(renderDecision(prompt, "prod").message.text).toEndWith("; open 1 min 5 s.");
  });

  test("credentials in what a pod wrote are redacted and counted", () => {
    const { message, redacted } = renderDecision(decision("announce", "notify"), "prod");
    expect(message.text).toContain("postgres://app:[redacted]@db:5432/x");
    expect(message.text).not.toContain("hunter2");
    expect(message.text).not.toContain("abcdefghijklmnop");
    expect(redacted).toBe(2);
  });

  test("a resolve names what the incident was blamed on and how long it was open; it carries the combined variant", () => {
    const { message, openedResolved } = renderDecision(decision("resolve", "notify"), "prod");
    expect(message.text).toBe(
      "✅ Resolved: deployment shop/api [prod]\nWas blamed on deployment shop/api (CrashLoopBackOff); open 12 min.",
    );
    expect(openedResolved?.action).toBe("opened_resolved");
    expect(openedResolved?.text).toStartWith(
      "✅ Opened and resolved: deployment shop/api: CrashLoopBackOff in 1 pod [prod]",
    );
  });

  test("durations read naturally", () => {
    expect([duration(42_000), duration(7 * 60_000), duration(185 * 60_000), duration(52 * 3_600_000)]).toEqual([
      "42 s",
      "7 min",
      "3 h 5 min",
      "2 d 4 h",
    ]);
  });

  test("a namespace outage and a shared endpoint name the workloads they fold in", () => {
    const affected = ["a", "b", "c", "d"].map((name) => ({ kind: "Deployment", namespace: "shop", name }));
    const outage = renderDecision(
      decision("announce", "notify", {
        root: { kind: "Namespace", name: "shop" },
        rootReason: "NamespaceOutage",
        affected,
      }),
      "prod",
    ).message;
    expect(outage.title).toBe(
      "namespace shop: outage, 4 workloads failing (deployment shop/a, deployment shop/b, deployment shop/c, …)",
    );
    const endpoint = renderDecision(
      decision("announce", "notify", {
        root: { kind: "Endpoint", name: "orders-db.shop:5432" },
        rootReason: "DependencyUnreachable",
        affected: affected.slice(0, 2),
      }),
      "prod",
    ).message;
    expect(endpoint.title).toBe(
      "endpoint orders-db.shop:5432: unreachable, 2 workloads failing on it (deployment shop/a, deployment shop/b)",
    );
  });
});

describe("counts say what they count (pods)", () => {
  const f = (reason: string, kind: string, name: string, part = "") => ({
    key: `${reason}/${kind}/shop/${name}${part}`,
    reason,
    object: { kind, namespace: "shop", name, ...(kind === "Node" ? { namespace: undefined } : {}) },
    tier: "medium" as const,
    summary: `${reason} ${name}`,
    evidence: [],
    since: 0,
  });
  const headline = (extra: Partial<Incident>) =>
    renderDecision(decision("announce", "notify", extra), "prod").message.text.split("\n")[0];

  test("a node with two findings on one pod's containers and one on another: 2 pods on it down", () => {
    const line = headline({
      id: "Node//n1",
      root: { kind: "Node", name: "n1" },
      rootReason: "NodeLost",
      findings: [
        f("NodeLost", "Node", "n1"),
        f("PodNodeLost", "Pod", "api-1", "/a"),
        f("PodNodeLost", "Pod", "api-1", "/b"),
        f("PodNodeLost", "Pod", "web-1"),
      ],
    });
    expect(line).toContain("node n1: unreachable, 2 pods on it down");
  });

  test("a missing Secret with its Deployment and one pod: 1 pod affected; a workload incident counts its pods only", () => {
    expect(
      headline({
        id: "Secret/shop/db",
        root: { kind: "Secret", namespace: "shop", name: "db" },
        rootReason: "SecretMissing",
        findings: [
          f("SecretMissing", "Secret", "db"),
          f("WorkloadUnavailable", "Deployment", "api"),
          f("CreateContainerConfigError", "Pod", "api-1"),
        ],
      }),
    ).toContain("SecretMissing, 1 pod affected");
    expect(
      headline({
        findings: [f("CrashLoopBackOff", "Pod", "api-1"), f("WorkloadUnavailable", "Deployment", "api")],
      }),
    ).toContain("deployment shop/api: CrashLoopBackOff, 1 pod affected");
  });

  test("a ConfigMap or Secret that exists but lacks a key: the headline (and so a roll-up's line) names the key", () => {
    for (const [kind, reason] of [
      ["ConfigMap", "ConfigMapMissing"],
      ["Secret", "SecretMissing"],
    ] as const) {
      const line = headline({
        id: `${kind}/shop/settings`,
        root: { kind, namespace: "shop", name: "settings" },
        rootReason: reason,
        findings: [
          { ...f(reason, kind, "settings", "/level"), evidence: [{ label: "key", value: "level" }] },
          f("CreateContainerConfigError", "Pod", "api-1"),
        ],
      });
      expect(line).toContain(`${kind.toLowerCase()} shop/settings: has no key level, 1 pod affected`);
    }
  });
});

describe("a resolve says what changed", () => {
  test("the root's state now comes first, then what it was blamed on", () => {
    const { message } = renderDecision(
      decision("resolve", "notify"),
      "prod",
      undefined,
      () => "2/2 replicas available",
    );
    expect(message.text).toBe(
      "✅ Resolved: deployment shop/api [prod]\nNow: 2/2 replicas available.\nWas blamed on deployment shop/api (CrashLoopBackOff); open 12 min.",
    );
  });
});
