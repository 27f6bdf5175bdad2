import { deployment, fate, setFates, type Story } from "./story.ts";

/**
 * Stories of trust (issue 52) that need more than a cluster: mon starting while failures are already there, or
 * a silence in mon's configuration. They are told on the simulator under generated timings
 * (src/e2e/trust-stories.test.ts) and on the real control plane (src/e2e/real-control-plane.test.ts), each with
 * a daemon of its own; `mon sim --story` does not list them (mon's start and configuration are the user's).
 */

/** A crash's last words, one of its own per workload: no two of them are one shared error. */
const crashing = (app: string) => fate("crash", `panic: ${app}: cannot load its ledger (exit 2)\n`);

/**
 * Issue 52 item 1: three of a namespace's five Deployments already crash-loop when mon starts; a sixth begins
 * afterwards. What failed before mon's start has no known onset — not a namespace that failed "at once" — so the
 * startup summary names each on its own, and the new crash loop is told on its own within its hold.
 */
export const failingBeforeMon: Story = {
  name: "failing-before-mon",
  description: "orders, billing and search crash-loop before mon starts; payments begins to after; all are fixed",
  nodes: 2,
  // Every pod has started and failed by then under any legal timing (a start takes at most 60 s).
  monStartsAt: 120,
  steps: [
    {
      t: 0,
      say: "kubectl apply: orders, billing and search (each failing on start), catalog and cart",
      run: (cluster) => {
        for (const app of ["orders", "billing", "search"])
          cluster.apply(deployment(app, `registry.example/${app}:1.0.0`, 1, { annotations: crashing(app) }));
        for (const app of ["catalog", "cart"]) cluster.apply(deployment(app, `registry.example/${app}:1.0.0`, 1));
      },
    },
    {
      t: 180,
      say: "kubectl apply: payments, failing on start",
      run: (cluster) =>
        cluster.apply(
          deployment("payments", "registry.example/payments:1.0.0", 1, { annotations: crashing("payments") }),
        ),
    },
    {
      t: 360,
      say: "each of the four runs again",
      run: (cluster) => {
        for (const app of ["orders", "billing", "search", "payments"]) setFates(cluster, app, undefined);
      },
    },
  ],
  fixedAt: 360,
  lengthSeconds: 360 + 480 + 60,
  quick: { at: [0, 180, 360], monStartsAt: 120, fixedAt: 360, lengthSeconds: 360 + 480 + 60 },
};

/** What the sync workloads print: one error, the same in three workloads. */
const PASSWORD_REFUSED = 'FATAL: password authentication failed for user "sync"\n';
/** What the report workloads print: a host outside the cluster refuses them. */
const OUTSIDE_REFUSED = "Error: dial tcp 203.0.113.50:5432: connect: connection refused\n";

/**
 * Issue 52 item 3: a silence of CrashLoopBackOff for the pods of sync-a and report-a. sync-a, sync-b and sync-c
 * fail with the same error: the shared error's incident names and counts sync-b and sync-c only. report-a and
 * report-b are refused by the same outside host: with report-a silenced one workload fails on it, which makes no
 * endpoint incident — report-b is told on its own. No message names what the silence holds back.
 */
export const silencedInGroup: Story = {
  name: "silenced-in-group",
  description: "sync-a/b/c fail with one error, report-a/b on one outside host; a silence holds sync-a and report-a",
  nodes: 2,
  config: { silences: [{ reasons: ["CrashLoopBackOff"], podNamePatterns: ["^sync-a-", "^report-a-"] }] },
  steps: [
    {
      t: 0,
      say: "kubectl apply: sync-a, sync-b, sync-c (the database refuses their password), report-a, report-b (refused)",
      run: (cluster) => {
        for (const app of ["sync-a", "sync-b", "sync-c"])
          cluster.apply(
            deployment(app, "registry.example/sync:4.1.0", 1, { annotations: fate("crash", PASSWORD_REFUSED) }),
          );
        for (const app of ["report-a", "report-b"])
          cluster.apply(
            deployment(app, "registry.example/report:2.0.3", 1, { annotations: fate("crash", OUTSIDE_REFUSED) }),
          );
      },
    },
    {
      t: 240,
      say: "the password is right again and the host accepts connections",
      run: (cluster) => {
        for (const app of ["sync-a", "sync-b", "sync-c", "report-a", "report-b"]) setFates(cluster, app, undefined);
      },
    },
  ],
  fixedAt: 240,
  lengthSeconds: 240 + 480 + 60,
  quick: { at: [0, 240], fixedAt: 240, lengthSeconds: 240 + 480 + 60 },
};

/** The trust stories, by name. */
export const TRUST_STORIES: readonly Story[] = [failingBeforeMon, silencedInGroup];
