import { describe, expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, parseAllDocuments } from "yaml";
import { runCli } from "../testing/cli.ts";
import { helm } from "../testing/helm.ts";
import { BINARIES, realTest } from "../testing/real-components.ts";
import { realKube, realKubeTest } from "../testing/real-kube.ts";

/** The fields of a listed object the state comparison reads. */
interface KubeObjectLike {
  kind: string;
  metadata: { name: string; resourceVersion: string; generation?: number; labels?: Record<string, string> };
}

/**
 * The Helm chart with the real Helm v3.17 (issue 43): linted strictly, every documented values combination
 * rendered and accepted by the real v1.32 API server (a server-side dry run), and installed, upgraded and
 * uninstalled on it.
 */
const CHART = join(import.meta.dirname, "..", "..", "deploy", "chart", "mon");
const helmTest = BINARIES.helm ? realKubeTest("the Helm chart on the real control plane") : realTest("helm", "helm");

/** The pod template's annotations changed from `before` to `after`, and only its `checksum/` ones: the pods roll. */
function expectOnlyChecksumsMoved(before: Record<string, string>, after: Record<string, string>): void {
  const moved = Object.keys(after).filter((k) => after[k] !== before[k]);
  expect(moved.length).toBeGreaterThan(0);
  expect(moved.every((k) => k.startsWith("checksum/"))).toBe(true);
}

/** The values combinations docs/install.md documents, as `--set` lists (monitoring objects need the Prometheus Operator's CRDs). */
const COMBINATIONS: Readonly<Record<string, readonly string[]>> = {
  defaults: [],
  "the install example": [
    "image.repository=registry.internal/mon",
    "config.values.app.clusterName=prod-eu-1",
    "license.existingSecret=mon-license",
  ],
  "least privilege": ["rbac.mode=least-privilege"],
  "no Secrets": ["watch.secrets=false"],
  "no CRD": ["crd.enabled=false"],
  "three replicas on a state volume, a PodDisruptionBudget and a NetworkPolicy": [
    "replicas=3",
    "state.enabled=true",
    "license.existingSecret=mon-license",
    "podDisruptionBudget.enabled=true",
    "networkPolicy.enabled=true",
    "networkPolicy.healthFrom[0].podSelector.matchLabels.app=prometheus",
  ],
  "names and the ServiceAccount's annotations": [
    "fullnameOverride=watcher",
    "serviceAccount.annotations.eks\\.amazonaws\\.com/role-arn=arn:aws:iam::123456789012:role/mon",
    "metrics.service.enabled=false",
  ],
  "a digest and its own namespace": [`image.digest=sha256:${"a".repeat(64)}`, "namespace.create=true"],
  "the incidents page": ["incidentsPage.enabled=true"],
  "a cluster without a Service proxy": ["hostNetwork=true", "apiServer.host=127.0.0.1", "apiServer.port=6443"],
  "pods reaching the API server by its certificate's name": [
    "apiServer.host=kubernetes.default.svc",
    "apiServer.port=6443",
    "hostAliases[0].ip=10.0.0.10",
    "hostAliases[0].hostnames[0]=kubernetes.default.svc",
  ],
};

describe("the Helm chart, with the real Helm", () => {
  helmTest(
    "helm lint --strict passes; every documented values combination renders what the real API server accepts",
    async () => {
      const lint = await helm(undefined, ["lint", "--strict", CHART]);
      expect(lint.output).toContain("1 chart(s) linted, 0 chart(s) failed");
      expect(lint.status).toBe(0);
      const kube = await realKube();
      await kube.kubectl(["create", "namespace", "mon-dry"]);
      for (const [name, sets] of Object.entries(COMBINATIONS)) {
        const rendered = await helm(kube, [
          "template",
          "mon",
          CHART,
          "-n",
          "mon-dry",
          "--include-crds",
          ...sets.flatMap((s) => ["--set", s]),
        ]);
        expect(`${name}: ${rendered.status}`).toBe(`${name}: 0`);
        const kinds = parseAllDocuments(rendered.output)
          .map((d) => d.toJS() as { kind?: string } | null)
          .filter((o) => o?.kind)
          .map((o) => o!.kind);
        expect(kinds).toContain("Deployment");
        // The chart names each object's namespace (the release's, or kube-system for what it reads there).
        const dry = await kube.kubectl(["apply", "--dry-run=server", "-f", "-"], rendered.output);
        expect(`${name}: ${dry.status} ${dry.status === 0 ? "" : dry.output}`).toBe(`${name}: 0 `);
      }
    },
    240_000,
  );

  helmTest(
    "helm install prints NOTES.txt; helm upgrade with a changed value, or a changed config.existingSecret (lookup), rolls the pods and replaces nothing; helm uninstall leaves nothing of the release",
    async () => {
      const kube = await realKube();
      await kube.kubectl(["create", "namespace", "mon-helm"]);
      const install = await helm(kube, [
        "install",
        "mon",
        CHART,
        "-n",
        "mon-helm",
        "--set",
        "config.values.app.clusterName=helm-1",
        "--set",
        "config.values.alert.webhook.url=https://hooks.example.test/mon",
      ]);
      expect(install.status).toBe(0);
      expect(install.output).toContain("STATUS: deployed");
      expect(install.output).toContain("mon ");
      expect(install.output).toContain("is installed in namespace mon-helm as mon");
      expect(install.output).toContain("Community (no license.existingSecret)");
      const objects = async () => {
        const listed = await kube.kubectl([
          "get",
          "deployment,service,serviceaccount,secret,role,rolebinding,clusterrole,clusterrolebinding,configmap",
          "-A",
          "-l",
          "app.kubernetes.io/instance=mon",
          "-o",
          "jsonpath={range .items[*]}{.kind}/{.metadata.name} {.metadata.uid} {.metadata.generation}{'\\n'}{end}",
        ]);
        expect(listed.status).toBe(0);
        return listed.output.trim().split("\n").filter(Boolean).sort();
      };
      const template = async () =>
        JSON.parse(
          (
            await kube.kubectl([
              "-n",
              "mon-helm",
              "get",
              "deployment",
              "mon",
              "-o",
              "jsonpath={.spec.template.metadata.annotations}",
            ])
          ).output || "{}",
        ) as Record<string, string>;
      const before = await objects();
      const annotationsBefore = await template();
      expect(before.some((o) => o.startsWith("Deployment/mon "))).toBe(true);

      const upgrade = await helm(kube, [
        "upgrade",
        "mon",
        CHART,
        "-n",
        "mon-helm",
        "--reuse-values",
        "--set",
        "config.values.app.clusterName=helm-2",
      ]);
      expect(upgrade.status).toBe(0);
      const after = await objects();
      // The same objects (same uids): only the Deployment's generation moved, its pod template's checksum with it.
      const uids = (list: string[]) => list.map((o) => o.split(" ").slice(0, 2).join(" "));
      expect(uids(after)).toEqual(uids(before));
      const generation = (list: string[]) => Number(list.find((o) => o.startsWith("Deployment/mon "))?.split(" ")[2]);
      expect(generation(after)).toBe(generation(before) + 1);
      expectOnlyChecksumsMoved(annotationsBefore, await template());

      // Your own configuration Secret: its data, read with lookup at install and upgrade, is in the checksum.
      const secret = (text: string) =>
        kube.kubectl(
          ["-n", "mon-helm", "apply", "-f", "-"],
          JSON.stringify({
            apiVersion: "v1",
            kind: "Secret",
            metadata: { name: "my-config" },
            stringData: { "config.yaml": text },
          }),
        );
      await secret("app:\n  clusterName: mine-1\n");
      const own = await helm(kube, [
        "upgrade",
        "mon",
        CHART,
        "-n",
        "mon-helm",
        "--reuse-values",
        "--set",
        "config.existingSecret=my-config",
      ]);
      expect(own.status).toBe(0);
      const withOwn = await template();
      await secret("app:\n  clusterName: mine-2\n");
      expect((await helm(kube, ["upgrade", "mon", CHART, "-n", "mon-helm", "--reuse-values"])).status).toBe(0);
      expectOnlyChecksumsMoved(withOwn, await template());

      const uninstall = await helm(kube, ["uninstall", "mon", "-n", "mon-helm", "--wait"]);
      expect(uninstall.status).toBe(0);
      expect(await objects()).toEqual([]);
    },
    240_000,
  );

  helmTest(
    "the incidents page with one value: a generated token mounted where the configuration reads it, kept on upgrade, told in NOTES.txt",
    async () => {
      const kube = await realKube();
      await kube.kubectl(["create", "namespace", "mon-page"]);
      const install = await helm(kube, [
        "install",
        "page",
        CHART,
        "-n",
        "mon-page",
        "--set",
        "incidentsPage.enabled=true",
      ]);
      expect(install.status).toBe(0);
      expect(install.output).toContain("then open http://localhost:8060/incidents and give that token once.");
      const token = async () =>
        (
          await kube.kubectl([
            "-n",
            "mon-page",
            "get",
            "secret",
            "page-mon-diagnostics",
            "-o",
            "jsonpath={.data.token}",
          ])
        ).output;
      const first = await token();
      expect(Buffer.from(first, "base64").toString()).toMatch(/^[A-Za-z0-9]{40}$/);
      const config = (
        await kube.kubectl([
          "-n",
          "mon-page",
          "get",
          "secret",
          "page-mon-config",
          "-o",
          "jsonpath={.data.config\\.yaml}",
        ])
      ).output;
      const parsed = parse(Buffer.from(config, "base64").toString()) as {
        healthCheck: { enabled: boolean; diagnostics: { enabled: boolean; token: string } };
      };
      expect(parsed.healthCheck).toEqual({
        enabled: true,
        diagnostics: { enabled: true, token: "${file:/etc/mon/secrets/page-mon-diagnostics/token}" },
      });
      const mounts = (
        await kube.kubectl([
          "-n",
          "mon-page",
          "get",
          "deployment",
          "page-mon",
          "-o",
          "jsonpath={.spec.template.spec.containers[0].volumeMounts[*].mountPath}",
        ])
      ).output;
      expect(mounts.split(" ")).toContain("/etc/mon/secrets/page-mon-diagnostics");
      const upgrade = await helm(kube, [
        "upgrade",
        "page",
        CHART,
        "-n",
        "mon-page",
        "--reuse-values",
        "--set",
        "config.values.app.clusterName=paged",
      ]);
      expect(upgrade.status).toBe(0);
      expect(await token()).toBe(first);
      expect((await helm(kube, ["uninstall", "page", "-n", "mon-page", "--wait"])).status).toBe(0);
    },
    240_000,
  );

  helmTest(
    "mon install and mon install --uninstall leave a Helm release alone, naming it and the command that owns it (issue 52 item 11)",
    async () => {
      const kube = await realKube();
      const ns = "mon-helm-owned";
      await kube.kubectl(["create", "namespace", ns]);
      const install = await helm(kube, ["install", "mon", CHART, "-n", ns]);
      expect(install.status).toBe(0);
      const home = mkdtempSync(join(tmpdir(), "mon-helm-owned-"));
      const cli = (namespace: string, ...args: string[]) =>
        runCli(["install", "--yes", "--kubeconfig", kube.kubeconfigPath, "--namespace", namespace, ...args], { home });
      // What a write by mon install would change: a Deployment's spec (its generation) or labels — its
      // resourceVersion moves with every status the controllers write — and any other object's resourceVersion.
      const state = async () => {
        const listed = await kube.kubectl([
          "get",
          "deployment,secret,serviceaccount,role,rolebinding,clusterrole,clusterrolebinding",
          "-A",
          "-l",
          "app.kubernetes.io/instance=mon",
          "-o",
          "json",
        ]);
        const items = (JSON.parse(listed.output) as { items: KubeObjectLike[] }).items;
        return items
          .map(({ kind, metadata: m }) =>
            kind === "Deployment"
              ? `${kind}/${m.name} generation ${m.generation} ${JSON.stringify(m.labels)}`
              : `${kind}/${m.name} ${m.resourceVersion}`,
          )
          .join("\n");
      };
      const before = await state();
      expect(before).toContain("Deployment/mon generation 1 ");
      try {
        const removed = await cli(ns, "--uninstall");
        expect(removed.code).toBe(1);
        expect(removed.stderr).toContain(
          `namespace ${ns} holds an installation mon install did not make (Deployment ${ns}/mon managed by Helm release mon (namespace ${ns}): helm uninstall mon -n ${ns}); nothing removed`,
        );
        // Over the release in its namespace, and over its cluster-wide objects from another namespace: refused,
        // nothing written.
        const over = await cli(ns, "--cluster-name", "over");
        expect(over.code).toBe(1);
        expect(over.stderr).toContain(`Deployment ${ns}/mon is managed by Helm release mon (namespace ${ns})`);
        expect(over.stderr).toContain(`(helm uninstall mon -n ${ns})`);
        // mon install's own namespace "mon" would take the ClusterRole "mon", which the release holds.
        const beside = await cli("mon", "--cluster-name", "beside");
        expect(beside.code).toBe(1);
        expect(beside.stderr).toContain(`ClusterRole mon is managed by Helm release mon (namespace ${ns})`);
        expect(await state()).toBe(before);
        expect((await kube.kubectl(["-n", "mon", "get", "deployment", "mon"])).status).not.toBe(0);
      } finally {
        await helm(kube, ["uninstall", "mon", "-n", ns]);
        await kube.kubectl(["delete", "namespace", ns, "--wait=false"]);
        rmSync(home, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
