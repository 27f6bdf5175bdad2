import type { Told } from "./replay.ts";

/**
 * What a platform engineer should be told for each recorded timeline (src/sim/testdata/kube-apiserver-v1.32/
 * timelines), decided from the spec: how many announcements, updates and resolves, the incident that is
 * announced first (its root) and its reason. `why` records the judgement calls.
 */
export interface Expectation {
  readonly scenario: string;
  readonly announces: number;
  /** Updates allowed: news inside the conversation (spec 3.1 "only when something new is true"). */
  readonly updates: { readonly min: number; readonly max: number };
  readonly resolves: number;
  /** Incident id of the first announcement, when there is one. */
  readonly root?: string;
  readonly reason?: string;
  /**
   * The exact messages, in order: action, incident id and reason, then the headline and the line after it
   * (`medium · CrashLoopBackOff · 1 finding`, or a resolve's `Now: …`), for the cluster named `replay`.
   */
  readonly messages: readonly string[];
  /**
   * The messages when the story is told to the simulator's controllers instead, where they differ from the
   * recording's and why: `why` says it.
   */
  readonly onControllers?: { readonly messages: readonly string[]; readonly why: string };
  readonly why: string;
}

/**
 * Seconds a replay keeps watching after its recording ends: a crash loop fixed near the end is over only once
 * the container has stayed up as long as its last back-off, and that resolve belongs to the story.
 */
export const AFTER_SECONDS = 60;

/** A message as `messages` writes it. */
export function messageLine(m: Pick<Told, "action" | "incidentId" | "reason" | "text">): string {
  return `${m.action} ${m.incidentId} ${m.reason} | ${m.text.split("\n").slice(0, 2).join(" // ")}`;
}

export const EXPECTATIONS: readonly Expectation[] = [
  {
    scenario: "statefulset_crash",
    announces: 1,
    updates: { min: 0, max: 1 },
    resolves: 1,
    root: "StatefulSet/tl-statefulset-crash/ledger",
    reason: "CrashLoopBackOff",
    messages: [
      "announce StatefulSet/tl-statefulset-crash/ledger CrashLoopBackOff | 🟠 statefulset tl-statefulset-crash/ledger: CrashLoopBackOff in 1 pod [replay] // medium · CrashLoopBackOff · 1 finding",
      "resolve StatefulSet/tl-statefulset-crash/ledger CrashLoopBackOff | ✅ Resolved: statefulset tl-statefulset-crash/ledger [replay] // Now: 3/3 replicas available.",
    ],
    why: "ledger-1 crash-loops from t=10 to t=130 and is Ready again at t=140: one conversation, told once, resolved once after it stays up. Between two crashes the container runs for a moment; that is not a recovery.",
  },
  {
    scenario: "configmap_missing",
    announces: 1,
    updates: { min: 0, max: 1 },
    resolves: 1,
    root: "ConfigMap/tl-configmap-missing/reports-config",
    reason: "ConfigMapMissing",
    messages: [
      "announce ConfigMap/tl-configmap-missing/reports-config ConfigMapMissing | 🟠 configmap tl-configmap-missing/reports-config: ConfigMapMissing, 1 pod affected [replay] // high · ConfigMapMissing · 2 findings",
      "resolve ConfigMap/tl-configmap-missing/reports-config ConfigMapMissing | ✅ Resolved: configmap tl-configmap-missing/reports-config [replay] // Now: ConfigMap reports-config exists now.",
    ],
    why: "The missing ConfigMap is the cause; the Deployment's pod and the Service without endpoints are its symptoms and join its incident. No Service incident of its own, no resolve before the pod is Ready (t=101.8). The pod is first seen before its kubelet has said anything; a missing reference then waits 5 s in case the ConfigMap is only late to mon's watch (issue 50), so by the announcement the Deployment has said it has no available replica, and the announcement names both (high).",
    onControllers: {
      messages: [
        "announce ConfigMap/tl-configmap-missing/reports-config ConfigMapMissing | 🟠 configmap tl-configmap-missing/reports-config: ConfigMapMissing, 1 pod affected [replay] // high · ConfigMapMissing · 2 findings",
        "resolve ConfigMap/tl-configmap-missing/reports-config ConfigMapMissing | ✅ Resolved: configmap tl-configmap-missing/reports-config [replay] // Now: ConfigMap reports-config exists now.",
      ],
      why: "The controllers' kubelet says CreateContainerConfigError 1.2 s after the pod (the recording's emulator said it at once); until the kubelet says so, a missing reference waits 5 s in case the ConfigMap is only late to mon's watch (issue 50), so by the announcement the Deployment has said it has no available replica, and the announcement names both (high).",
    },
  },
  {
    scenario: "node_lost_daemonset",
    announces: 1,
    updates: { min: 0, max: 1 },
    resolves: 1,
    root: "Node//tl-node-b",
    reason: "NodeLost",
    messages: [
      "announce Node//tl-node-b NodeLost | 🟠 node tl-node-b: unreachable, 2 pods on it down [replay] // high · NodeLost · 3 findings",
      "resolve Node//tl-node-b NodeLost | ✅ Resolved: node tl-node-b [replay] // Now: node Ready again; 2 pods running.",
    ],
    why: "tl-node-b is marked Unknown at t=60 and is back at t=150; its DaemonSet and frontend pods are in the node's incident, which resolves once they are running again (t≈153), not when the node alone is Ready. The LoadBalancer Service keeps one ready endpoint, so it is no problem. It never reaches the 5-minute page rule.",
  },
  {
    scenario: "readiness_flap",
    announces: 1,
    updates: { min: 0, max: 1 },
    resolves: 1,
    root: "Deployment/tl-readiness-flap/search",
    reason: "ReadinessProbeFailing",
    messages: [
      "announce Deployment/tl-readiness-flap/search ReadinessProbeFailing | 🟠 deployment tl-readiness-flap/search: ReadinessProbeFailing, 2 pods affected [replay] // high · ReadinessProbeFailing · 4 findings",
      "resolve Deployment/tl-readiness-flap/search ReadinessProbeFailing | ✅ Resolved: deployment tl-readiness-flap/search [replay] // Now: 2/2 replicas available.",
    ],
    why: "Both pods fail readiness from t=20.7 to t=145.5: the Service has no ready endpoint (a real outage) because of the pods' failing probes. The pods' own finding holds 5 minutes, so the Service waits for it at most 2 minutes (the page-rule hold), then opens on the Deployment with the pods' probe failures, which name the incident (cause over symptom). One resolve when they are Ready again.",
  },
  {
    scenario: "rollout_surge",
    announces: 0,
    updates: { min: 0, max: 0 },
    resolves: 0,
    messages: [],
    why: "A rolling update with maxUnavailable 0: healthy churn, never a problem.",
  },
  {
    scenario: "scale_to_zero_and_back",
    announces: 0,
    updates: { min: 0, max: 0 },
    resolves: 0,
    messages: [],
    why: "Scaling to zero is deliberate; scaling back up leaves the Service without ready endpoints for the 3 s the new pods take to start. Recovery is quiet (rule 5).",
  },
  {
    scenario: "job_backoff",
    announces: 1,
    updates: { min: 0, max: 1 },
    resolves: 0,
    root: "Job/tl-job-backoff/migrate",
    messages: [
      "announce Job/tl-job-backoff/migrate ContainerExitedNonZero | 🟠 job tl-job-backoff/migrate: ContainerExitedNonZero in 1 pod [replay] // warning · ContainerExitedNonZero · 1 finding",
    ],
    why: "Every attempt of Job migrate exits 1; the Job fails for good at t=54.6 (BackoffLimitExceeded). One conversation on the Job, with the exit code and last output; that it failed for good (t=54.6) is news, but it falls inside the 5-minute update cooldown after the announcement (spec 3.1), so within the recording it is not sent yet. It stays failed: no resolve.",
  },
];

/** Counts of what was delivered, per action, and how it compares with the expectation. */
export interface Judged {
  readonly scenario: string;
  /** Whose timing: the recording replayed, or the simulator's controllers telling the same story. */
  readonly timing?: "recorded" | "controllers";
  readonly expected: Expectation;
  readonly announces: number;
  readonly updates: number;
  readonly resolves: number;
  /** The first announcement's incident id and reason, if any. */
  readonly first?: { readonly incidentId: string; readonly reason: string; readonly t: number };
  readonly rootRight: boolean;
  readonly ok: boolean;
}

/** Judges what a replay delivered against its expectation; a roll-up is one announcement, as its reader sees it. */
export function judge(expected: Expectation, told: readonly Told[]): Judged {
  const count = (action: string) => told.filter((m) => m.action === action).length;
  const announces = count("announce") + count("opened_resolved");
  const updates = count("update");
  const resolves = count("resolve") + count("opened_resolved");
  const firstAnnounce = told.find((m) => m.action === "announce" || m.action === "opened_resolved");
  const first = firstAnnounce
    ? { incidentId: firstAnnounce.incidentId, reason: firstAnnounce.reason, t: firstAnnounce.t }
    : undefined;
  const rootRight =
    expected.root === undefined
      ? first === undefined
      : first?.incidentId === expected.root && (expected.reason === undefined || first.reason === expected.reason);
  const ok =
    announces === expected.announces &&
    resolves === expected.resolves &&
    updates >= expected.updates.min &&
    updates <= expected.updates.max &&
    rootRight;
  return {
    scenario: expected.scenario,
    expected,
    announces,
    updates,
    resolves,
    ...(first ? { first } : {}),
    rootRight,
    ok,
  };
}

/** The quality table (docs/alert-quality.md), one row per scenario. */
export function qualityTable(rows: readonly Judged[]): string {
  const lines = [
    "| scenario | timing | expected a/u/r | delivered a/u/r | first announcement | root right | first message (s) | as expected |",
    "|---|---|---|---|---|---|---|---|",
  ];
  for (const r of rows) {
    const e = r.expected;
    const updates = e.updates.min === e.updates.max ? `${e.updates.min}` : `${e.updates.min}–${e.updates.max}`;
    lines.push(
      `| ${r.scenario} | ${r.timing ?? "recorded"} | ${e.announces}/${updates}/${e.resolves} | ${r.announces}/${r.updates}/${r.resolves} | ${r.first ? `\`${r.first.incidentId}\` ${r.first.reason}` : "—"} | ${r.rootRight ? "yes" : "no"} | ${r.first ? r.first.t.toFixed(1) : "—"} | ${r.ok ? "yes" : "no"} |`,
    );
  }
  return lines.join("\n");
}
