import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { startSimulator, type Simulator } from "../sim/simulator.ts";
import { startCaptureServer, waitUntil } from "../testing/capture-server.ts";
import { runCli } from "../testing/cli.ts";
import { realKube, realKubeTest } from "../testing/real-kube.ts";
import { deliverySettled, startTestCluster, testClock } from "../testing/cluster.ts";
import { startLicenseServer } from "../testing/license-server.ts";
import { type Manifest, unknownFields } from "../testing/manifests.ts";

/**
 * `mon install` (spec 4.4, 9.3; docs/install.md "The installer"), the real CLI run non-interactively with the
 * user's kubeconfig against the simulator: what it stores and applies, what a re-run changes, what it refuses,
 * `mon install features` from the installed release, and the License / Pro menu through the real license path.
 */
const home = mkdtempSync(join(tmpdir(), "mon-install-home-"));
let sim: Simulator;
let kubeconfig: string;
beforeAll(async () => {
  sim = await startSimulator();
  kubeconfig = join(home, "kubeconfig");
  writeFileSync(kubeconfig, sim.kubeconfig());
});
afterAll(async () => {
  await sim.stop();
});

const install = (...args: string[]) => runCli(["install", "--yes", "--kubeconfig", kubeconfig, ...args], { home });
const get = (apiVersion: string, kind: string, namespace: string | undefined, name: string) => {
  const type = sim.registry.findByKind(apiVersion, kind)!;
  try {
    return sim.store.get(type, namespace, name);
  } catch {
    return undefined;
  }
};
const secretText = (name: string, key: string, namespace = "mon") => {
  const value = get("v1", "Secret", namespace, name)?.data?.[key];
  return value === undefined ? undefined : Buffer.from(value, "base64").toString("utf8");
};
const deployment = () => get("apps/v1", "Deployment", "mon", "mon")!;
const envOf = () =>
  Object.fromEntries(
    (deployment().spec.template.spec.containers[0].env as { name: string; value?: string }[])
      .filter((e) => e.value !== undefined)
      .map((e) => [e.name, e.value]),
  );
const SLACK = "https://hooks.slack.com/services/T000/B000/installer-secret-value";

describe("mon install against the simulator", () => {
  test("a fresh install: the kustomize base with the overlay on, the configuration and its credential in Secrets, the catalogs", async () => {
    const run = await install("--cluster-name", "prod-eu1", "--provider", "slack", "--set", `webhook=${SLACK}`);
    expect(run.code).toBe(0);
    for (const line of [
      "CustomResourceDefinition monconfigs.mon.io created",
      "Namespace mon created",
      "ClusterRole mon created",
      "Role mon/mon created",
      "Role kube-system/mon-kube-system created",
      "Deployment mon/mon created",
      "Secret mon/mon-config created",
      "ConfigMap mon/mon-catalog created",
    ])
      expect(run.stdout).toContain(line);
    // The configuration names the credential only as a ${file:} reference to a key of the same Secret.
    const config = secretText("mon-config", "config.yaml")!;
    expect(parse(config)).toEqual({
      app: { clusterName: "prod-eu1" },
      alert: { slack: { webhook: "${file:/etc/mon/slack-webhook}" } },
    });
    expect(config).not.toContain("installer-secret-value");
    expect(secretText("mon-config", "slack-webhook")).toBe(SLACK);
    expect(run.stdout + run.stderr).not.toContain("installer-secret-value");
    // Every object it wrote is valid for its kind's typed model (strict field validation would pass).
    const written = [
      get("v1", "Namespace", undefined, "mon"),
      get("v1", "ServiceAccount", "mon", "mon"),
      get("v1", "Service", "mon", "mon"),
      get("v1", "Secret", "mon", "mon-config"),
      get("v1", "ConfigMap", "mon", "mon-catalog"),
      get("apps/v1", "Deployment", "mon", "mon"),
      get("rbac.authorization.k8s.io/v1", "ClusterRole", undefined, "mon"),
      get("rbac.authorization.k8s.io/v1", "RoleBinding", "kube-system", "mon-kube-system"),
      get("apiextensions.k8s.io/v1", "CustomResourceDefinition", undefined, "monconfigs.mon.io"),
    ];
    for (const o of written) expect(unknownFields(o as Manifest), `${o?.kind}`).toEqual([]);
    expect(get("v1", "Namespace", undefined, "mon")!.metadata.labels["pod-security.kubernetes.io/enforce"]).toBe(
      "restricted",
    );
    // The overlay: on, granted and served.
    expect(envOf().MON_CRD_ENABLED).toBe("true");
    expect(get("rbac.authorization.k8s.io/v1", "Role", "mon", "mon")!.rules).toContainEqual({
      apiGroups: ["mon.io"],
      resources: ["monconfigs"],
      verbs: ["list", "watch"],
    });
    expect(sim.registry.find("mon.io", "v1beta1", "monconfigs")).toBeDefined();
    expect(deployment().spec.template.metadata.annotations["mon.io/config-sha256"]).toMatch(/^[0-9a-f]{64}$/);
  }, 60_000);

  test("a re-run changes nothing; a changed setting updates the Secret and rolls the Deployment", async () => {
    const same = await install();
    expect(same.code).toBe(0);
    expect(same.stdout).not.toMatch(/ (created|configured)$/m);
    expect(same.stdout).not.toContain("rolls its pods");
    const before = deployment().spec.template.metadata.annotations["mon.io/config-sha256"];
    const changed = await install("--cluster-name", "prod-eu2");
    expect(changed.stdout).toContain("Secret mon/mon-config configured");
    expect(changed.stdout).toContain("the configuration changed: the Deployment rolls its pods");
    expect(deployment().spec.template.metadata.annotations["mon.io/config-sha256"]).not.toBe(before);
    // The provider stays, with its credential.
    expect(parse(secretText("mon-config", "config.yaml")!).alert.slack).toBeDefined();
    expect(secretText("mon-config", "slack-webhook")).toBe(SLACK);
  }, 60_000);

  test("least privilege without Secrets and without the overlay, as flags", async () => {
    const run = await install(
      "--rbac",
      "least-privilege",
      "--no-watch-secrets",
      "--no-overlay",
      "--image",
      "registry.internal/mon:0.1.0",
    );
    expect(run.code).toBe(0);
    const rules = get("rbac.authorization.k8s.io/v1", "ClusterRole", undefined, "mon")!.rules as {
      resources?: string[];
    }[];
    expect(rules.flatMap((r) => r.resources ?? [])).not.toContain("*");
    expect(rules.flatMap((r) => r.resources ?? [])).not.toContain("secrets");
    const role = get("rbac.authorization.k8s.io/v1", "Role", "mon", "mon")!.rules as { resources?: string[] }[];
    expect(role.flatMap((r) => r.resources ?? [])).not.toContain("secrets");
    expect(role.flatMap((r) => r.resources ?? [])).not.toContain("monconfigs");
    expect(envOf()).toMatchObject({ MON_CRD_ENABLED: "false", MON_WATCH_SECRETS: "false" });
    expect(deployment().spec.template.spec.containers[0].image).toBe("registry.internal/mon:0.1.0");
    // Back to the defaults of the chart and the base.
    expect((await install("--rbac", "full", "--watch-secrets", "--overlay")).code).toBe(0);
    expect(envOf().MON_CRD_ENABLED).toBe("true");
    expect(envOf().MON_WATCH_SECRETS).toBeUndefined();
  }, 60_000);

  test("Pro HA and the NetworkPolicy as flags: the ha and network-policy components, and back without them", async () => {
    const on = await install("--ha", "--network-policy");
    expect(on.code).toBe(0);
    for (const line of [
      "PersistentVolumeClaim mon/mon-state created",
      "PodDisruptionBudget mon/mon created",
      "NetworkPolicy mon/mon created",
      "Deployment mon/mon configured",
    ])
      expect(on.stdout).toContain(line);
    const spec = deployment().spec;
    expect(spec.replicas).toBe(2);
    expect(envOf().MON_DATA_DIR).toBe("/var/lib/mon");
    expect(spec.template.spec.volumes).toContainEqual({
      name: "state",
      persistentVolumeClaim: { claimName: "mon-state" },
    });
    expect(spec.template.spec.containers[0].volumeMounts).toContainEqual({ name: "state", mountPath: "/var/lib/mon" });
    expect(spec.template.spec.affinity.podAffinity).toBeDefined();
    // A re-run keeps HA without the flag.
    expect((await install()).stdout).not.toContain("Deployment mon/mon configured");
    const off = await install("--no-ha", "--no-network-policy");
    expect(off.code).toBe(0);
    expect(off.stdout).toContain("PodDisruptionBudget mon/mon deleted");
    expect(off.stdout).toContain("NetworkPolicy mon/mon deleted");
    expect(deployment().spec.replicas).toBe(1);
    expect(envOf().MON_DATA_DIR).toBeUndefined();
    expect(deployment().spec.template.spec.affinity).toBeUndefined();
    expect(deployment().spec.template.spec.volumes.map((v: { name: string }) => v.name)).not.toContain("state");
    // The state volume stays: it holds the Pro state file.
    expect(get("v1", "PersistentVolumeClaim", "mon", "mon-state")).toBeDefined();
    const refused = await install("--replicas", "2");
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain("--replicas above 1 needs --ha");
  }, 60_000);

  test("a cluster without a Service proxy: --api-server puts mon on the node's network with that address, and back", async () => {
    const on = await install("--api-server", "127.0.0.1:6443");
    expect(on.code).toBe(0);
    expect(on.stdout).toContain("Deployment mon/mon configured");
    const spec = deployment().spec;
    expect(spec.template.spec).toMatchObject({ hostNetwork: true, dnsPolicy: "ClusterFirstWithHostNet" });
    expect(spec.strategy.rollingUpdate).toEqual({ maxSurge: 0, maxUnavailable: 1 });
    expect(envOf()).toMatchObject({ KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: "6443" });
    const podSecurity = () => get("v1", "Namespace", undefined, "mon")!.metadata.labels;
    // Outside the default namespace too: the labels move, the name stays the installation's.
    const elsewhere = await install("--namespace", "mon-edge", "--api-server", "127.0.0.1:6443", "--dry-run");
    expect(elsewhere.stdout).toMatch(/kind: Namespace\nmetadata:\n {2}name: mon-edge\n/);
    expect(elsewhere.stdout).toMatch(/kind: Deployment\nmetadata:\n {2}name: mon\n {2}namespace: mon-edge\n/);
    const ha = await install("--namespace", "mon-edge", "--ha", "--dry-run");
    expect(ha.stdout).toMatch(/kind: Deployment\nmetadata:\n {2}name: mon\n {2}namespace: mon-edge\n/);
    expect(podSecurity()).toMatchObject({
      "pod-security.kubernetes.io/enforce": "privileged",
      "pod-security.kubernetes.io/warn": "restricted",
    });
    // A re-run keeps it without the flag; another address replaces it; an empty one removes it.
    expect((await install()).stdout).not.toContain("Deployment mon/mon configured");
    expect((await install("--api-server", "[fd00::1]:443")).code).toBe(0);
    expect(envOf()).toMatchObject({ KUBERNETES_SERVICE_HOST: "fd00::1", KUBERNETES_SERVICE_PORT: "443" });
    const off = await install("--api-server", "");
    expect(off.code).toBe(0);
    expect(deployment().spec.template.spec.hostNetwork).toBeUndefined();
    expect(deployment().spec.strategy.rollingUpdate).toEqual({ maxSurge: 1, maxUnavailable: 0 });
    expect(envOf().KUBERNETES_SERVICE_HOST).toBeUndefined();
    expect(podSecurity()["pod-security.kubernetes.io/enforce"]).toBe("restricted");
    const refused = await install("--api-server", "kube-apiserver");
    expect(refused.code).not.toBe(0);
    expect(refused.stdout + refused.stderr).toContain("--api-server must be host:port");
  }, 60_000);

  test("air-gapped: a proxy with credentials, a CA bundle and the proxy's egress port", async () => {
    const bundle = join(home, "ca.pem");
    writeFileSync(bundle, sim.pki.caCert);
    const run = await install(
      "--network-policy",
      "--egress-ports",
      "3128",
      "--proxy-url",
      "http://mon:proxy-secret@proxy.internal:3128",
      "--ca-bundle",
      bundle,
    );
    expect(run.code).toBe(0);
    const app = parse(secretText("mon-config", "config.yaml")!).app;
    expect(app).toMatchObject({ proxyURL: "${file:/etc/mon/proxy-url}", caBundlePath: "/etc/mon/ca-bundle.pem" });
    expect(secretText("mon-config", "proxy-url")).toBe("http://mon:proxy-secret@proxy.internal:3128");
    expect(secretText("mon-config", "ca-bundle.pem")).toBe(sim.pki.caCert);
    const egress = get("networking.k8s.io/v1", "NetworkPolicy", "mon", "mon")!.spec.egress;
    expect(egress.at(-1)).toEqual({ ports: [{ port: 3128, protocol: "TCP" }] });
    // Kept on a re-run; a bundle that is not PEM is refused like startup refuses it.
    expect((await install()).stdout).toContain("NetworkPolicy mon/mon unchanged");
    writeFileSync(bundle, "not a certificate");
    const refused = await install("--ca-bundle", bundle);
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain("app.caBundlePath");
    expect((await install("--no-network-policy", "--proxy-url", "")).code).toBe(0);
    expect(parse(secretText("mon-config", "config.yaml")!).app.proxyURL).toBeUndefined();
    expect(secretText("mon-config", "proxy-url")).toBeUndefined();
  }, 60_000);

  test("a second installation in another namespace gets its own cluster-wide grants, leaving the first one's alone", async () => {
    const run = await install("--namespace", "team-b", "--cluster-name", "team-b");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("ClusterRole mon-team-b created");
    expect(run.stdout).toContain("Role kube-system/mon-team-b-kube-system created");
    const binding = get("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", undefined, "mon-team-b")!;
    expect(binding.roleRef.name).toBe("mon-team-b");
    expect(binding.subjects).toEqual([{ kind: "ServiceAccount", name: "mon", namespace: "team-b" }]);
    expect(get("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", undefined, "mon")!.subjects).toEqual([
      { kind: "ServiceAccount", name: "mon", namespace: "mon" },
    ]);
    expect(parse(secretText("mon-config", "config.yaml", "team-b")!).app.clusterName).toBe("team-b");
  }, 60_000);

  test("answers that break the provider catalog or the configuration are refused in one line, and nothing is written", async () => {
    const before = get("v1", "Secret", "mon", "mon-config")!.metadata.resourceVersion;
    for (const [args, message] of [
      // Each names what the user typed (issue 29.15), then the configuration key it becomes.
      [
        ["--provider", "slack", "--set", "token=xoxb-1"],
        "--provider slack: --set token needs --set channel too (alert.slack.token needs alert.slack.channel)",
      ],
      [
        ["--provider", "slack", "--set", "webhook=a", "--set", "token=b", "--set", "channel=c"],
        "--provider slack: set exactly one of --set webhook, --set token (got webhook, token)",
      ],
      [["--provider", "webhook"], "--provider webhook: --set url=… is required (alert.webhook.url is required"],
      [
        ["--provider", "webhook", "--set", "url=not-a-url"],
        "--provider webhook --set url: must be an absolute URL (alert.webhook.url)",
      ],
      [
        ["--provider", "slakc"],
        "--provider slakc: no alert provider is named slakc (did you mean slack?); mon install features lists them",
      ],
      [
        ["--provider", "slack", "--set", "chanel=C1", "--set", "token=x"],
        "--set chanel: no such option (did you mean channel?)",
      ],
      [["--set", "url=x"], "--set needs --provider"],
      [["--rbac", "some"], "--rbac must be full or least-privilege"],
    ] as const) {
      const run = await install(...args);
      expect(run.code, args.join(" ")).toBe(1);
      expect(run.stdout + run.stderr).toContain(message);
      expect(run.stdout + run.stderr).not.toContain("    at ");
      expect(run.stdout + run.stderr).not.toContain("config.yaml:");
    }
    expect(get("v1", "Secret", "mon", "mon-config")!.metadata.resourceVersion).toBe(before);
  }, 60_000);

  test("--dry-run prints objects the API server accepts as printed: Secrets under stringData, credentials hidden (issue 41)", async () => {
    const run = await install(
      "--namespace",
      "dry",
      "--dry-run",
      "--cluster-name",
      "dry-run",
      "--provider",
      "slack",
      "--set",
      `webhook=${SLACK}`,
    );
    expect(run.code).toBe(0);
    const objects = run.stdout.split(/^---$/m).map((doc) => parse(doc) as Manifest);
    const secret = objects.find((o) => o.kind === "Secret" && o.metadata.name === "mon-config")!;
    expect(secret.data).toBeUndefined();
    const stringData = secret.stringData as Record<string, string>;
    expect(parse(stringData["config.yaml"]!)).toMatchObject({ app: { clusterName: "dry-run" } });
    expect(stringData["slack-webhook"]).toBe(`<${SLACK.length} bytes>`);
    expect(run.stdout).not.toContain("installer-secret-value");
    // Nothing was applied.
    expect(get("v1", "Namespace", undefined, "dry")).toBeUndefined();
  }, 60_000);

  test("--uninstall with no terminal to ask on and no --yes removes nothing and says --yes; with --yes it names only what a reinstall finds (issue 41)", async () => {
    expect((await install("--namespace", "asked", "--cluster-name", "asked")).code).toBe(0);
    const refused = await runCli(["install", "--uninstall", "--kubeconfig", kubeconfig, "--namespace", "asked"], {
      home,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("there is no terminal to ask on: add --yes");
    expect(get("apps/v1", "Deployment", "asked", "mon")).toBeDefined();

    const removed = await install("--uninstall", "--namespace", "asked");
    expect(removed.code).toBe(0);
    expect(get("apps/v1", "Deployment", "asked", "mon")).toBeUndefined();
    // No license key and no state volume were kept: nothing to promise about them.
    expect(removed.stdout + removed.stderr).toContain("mon removed from namespace asked");
    expect(removed.stdout + removed.stderr).not.toContain("kept key");
    expect(removed.stdout + removed.stderr).not.toContain("state");
  }, 60_000);

  test("mon install features lists the features of the installed release, from its ConfigMap", async () => {
    const catalog = sim.registry.findByKind("v1", "ConfigMap")!;
    const map = sim.store.get(catalog, "mon", "mon-catalog");
    sim.store.update(catalog, "mon", "mon-catalog", {
      ...map,
      data: {
        ...map.data,
        "feature-catalog.tsv": `${map.data["feature-catalog.tsv"]}installedOnly\truntimes\tpro\tOnly the installed release has it.\n`,
      },
    });
    const run = await runCli(["install", "features", "--kubeconfig", kubeconfig], { home });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Features of mon 0.1.0 installed in mon");
    expect(run.stdout).toMatch(/installedOnly\s+Pro\s+Only the installed release has it\. \(needs runtimes\)/);
    expect(run.stdout).toMatch(/silences\s+Silence rules/);
    expect(run.stdout).toContain("Alert providers (55)");
    const none = await runCli(["install", "features", "--kubeconfig", kubeconfig, "--namespace", "elsewhere"], {
      home,
    });
    expect(none.code).toBe(1);
    expect(none.stdout + none.stderr).toContain("no mon release is installed in namespace elsewhere");
  }, 60_000);
});

describe("the License / Pro menu through the real license path", () => {
  test("a key added by the installer activates Pro; removing it sets deactivated-at, and the running leader releases the binding", async () => {
    const clock = testClock();
    const licenses = await startLicenseServer(() => clock.now());
    const hook = await startCaptureServer();
    const licensed = await startSimulator({ timers: clock, bookmarkIntervalMs: 170_000 });
    const config = join(home, "licensed.kubeconfig");
    writeFileSync(config, licensed.kubeconfig());
    const key = licenses.addLicense();
    try {
      const added = await runCli(["install", "--yes", "--kubeconfig", config, "--license-key", key], { home });
      expect(added.code).toBe(0);
      expect(added.stdout).toContain("Secret mon/mon-license created");
      const stored = Buffer.from(
        licensed.store.get(licensed.registry.findByKind("v1", "Secret")!, "mon", "mon-license").data.key,
        "base64",
      ).toString();
      expect(stored).toBe(key);
      // The pod's MON_LICENSE_KEY comes from that Secret (the base's Deployment): mon activates it.
      const cluster = await startTestCluster(
        { webhook: { url: `${hook.url}/mon` } },
        {
          cluster: "prod",
          config: { resyncSeconds: 0 },
          env: { MON_LICENSE_URL: licenses.url, MON_LICENSE_KEY: stored, POD_NAMESPACE: "mon" },
          sim: licensed,
          clock,
        },
      );
      try {
        await waitUntil(() => cluster.daemon.edition() === "pro", "Pro from the installed key");
        const removed = await runCli(["install", "--yes", "--kubeconfig", config, "--remove-license"], { home });
        expect(removed.code).toBe(0);
        expect(removed.stdout).toContain("deactivated-at is set");
        expect(removed.stdout).not.toContain("rolls its pods");
        expect(() => licensed.store.get(licensed.registry.findByKind("v1", "Secret")!, "mon", "mon-license")).toThrow();
        // The leader looks at the instance Secret every minute.
        await clock.advance(2 * 60_000);
        await deliverySettled(cluster.daemon);
        await waitUntil(() => cluster.daemon.edition() === "community", "Community after the removal");
        expect(licenses.calls("/v1/release")).toBe(1);
        // Adding a key again clears deactivated-at, so the same key can be Pro again.
        const instance = () =>
          licensed.store.get(licensed.registry.findByKind("v1", "Secret")!, "mon", "mon-license-instance").data;
        expect(instance()["deactivated-at"]).toBeDefined();
        const again = await runCli(["install", "--yes", "--kubeconfig", config, "--license-key", key], { home });
        expect(again.code).toBe(0);
        expect(again.stdout).toContain("the configuration changed: the Deployment rolls its pods");
        expect(instance()["deactivated-at"]).toBeUndefined();
      } finally {
        await cluster.stopDaemon();
      }
    } finally {
      await licensed.stop();
      await licenses.close();
      await hook.close();
    }
  }, 120_000);

  test("--uninstall removes what the installer created and releases the binding; the key and state stay for a reinstall; --purge removes them too", async () => {
    const clock = testClock();
    const licenses = await startLicenseServer(() => clock.now());
    const hook = await startCaptureServer();
    const cluster = await startSimulator({ timers: clock, bookmarkIntervalMs: 170_000 });
    const config = join(home, "uninstall.kubeconfig");
    writeFileSync(config, cluster.kubeconfig());
    const mon = (...args: string[]) =>
      runCli(["install", "--yes", "--kubeconfig", config, ...args], { home, env: { MON_LICENSE_URL: licenses.url } });
    const exists = (apiVersion: string, kind: string, namespace: string | undefined, name: string) => {
      try {
        cluster.store.get(cluster.registry.findByKind(apiVersion, kind)!, namespace, name);
        return true;
      } catch {
        return false;
      }
    };
    const key = licenses.addLicense();
    const runPro = async () => {
      const daemon = await startTestCluster(
        { webhook: { url: `${hook.url}/mon` } },
        {
          cluster: "prod",
          config: { resyncSeconds: 0 },
          env: { MON_LICENSE_URL: licenses.url, MON_LICENSE_KEY: key, POD_NAMESPACE: "mon" },
          sim: cluster,
          clock,
        },
      );
      await waitUntil(() => daemon.daemon.edition() === "pro", "Pro from the installed key");
      // The pod goes with its Deployment.
      await daemon.stopDaemon();
    };
    try {
      expect((await mon("--license-key", key)).code).toBe(0);
      await runPro();
      expect(await mon("--uninstall", "--dry-run")).toMatchObject({ code: 0 });
      expect(exists("apps/v1", "Deployment", "mon", "mon")).toBe(true);

      const removed = await mon("--uninstall");
      expect(removed.code).toBe(0);
      for (const line of [
        "Deployment mon/mon deleted",
        "ClusterRole mon deleted",
        "Role kube-system/mon-kube-system deleted",
        "Secret mon/mon-config deleted",
        "ConfigMap mon/mon-catalog deleted",
        "Secret mon/mon-license kept: the license key",
        "CustomResourceDefinition monconfigs.mon.io kept",
        "license binding released",
      ])
        expect(removed.stdout + removed.stderr).toContain(line);
      expect(removed.stdout.indexOf("Deployment mon/mon deleted")).toBeLessThan(
        removed.stdout.indexOf("Secret mon/mon-config deleted"),
      );
      expect(exists("apps/v1", "Deployment", "mon", "mon")).toBe(false);
      expect(exists("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", undefined, "mon")).toBe(false);
      expect(exists("v1", "ServiceAccount", "mon", "mon")).toBe(false);
      expect(exists("v1", "Namespace", undefined, "mon")).toBe(true);
      expect(exists("v1", "Secret", "mon", "mon-license")).toBe(true);
      expect(licenses.calls("/v1/release")).toBe(1);
      const instance = cluster.store.get(cluster.registry.findByKind("v1", "Secret")!, "mon", "mon-license-instance");
      expect(instance.data["instance-key"]).toBeUndefined();

      // Installed again with the kept key, mon activates it anew.
      expect((await mon()).code).toBe(0);
      await runPro();
      expect(licenses.calls("/v1/activate")).toBe(2);

      // The license server out of reach: the binding is not forgotten, a second run finishes the job.
      licenses.setOffline(true);
      const offline = await mon("--uninstall", "--purge");
      expect(offline.code).toBe(0);
      expect(offline.stderr + offline.stdout).toContain("the license binding could not be released");
      expect(offline.stdout).toContain("Secret mon/mon-license-instance kept: the license binding is not released yet");
      expect(exists("apps/v1", "Deployment", "mon", "mon")).toBe(false);
      licenses.setOffline(false);
      const purged = await mon("--uninstall", "--purge");
      expect(purged.code).toBe(0);
      expect(purged.stdout).toContain("Namespace mon deleted");
      expect(purged.stdout).toContain("license binding released");
      expect(purged.stdout).not.toContain("kept");
      for (const [kind, name] of [
        ["Secret", "mon-license"],
        ["Secret", "mon-license-instance"],
      ])
        expect(exists("v1", kind!, "mon", name!)).toBe(false);
      expect(exists("apiextensions.k8s.io/v1", "CustomResourceDefinition", undefined, "monconfigs.mon.io")).toBe(false);
      expect(licenses.calls("/v1/release")).toBe(3);

      const nothing = await mon("--uninstall");
      expect(nothing.code).toBe(1);
      expect(nothing.stderr).toContain("no mon installation in namespace mon (no Deployment mon/mon); nothing removed");
    } finally {
      await cluster.stop();
      await licenses.close();
      await hook.close();
    }
  }, 120_000);
});

describe("mon install on the real control plane (issue 43)", () => {
  realKubeTest("mon install on the real control plane")(
    "mon install applies the installation to a real v1.32 API server, a re-run changes nothing, --uninstall removes it",
    async () => {
      const kube = await realKube();
      const args = ["--kubeconfig", kube.kubeconfigPath, "--namespace", "mon-real", "--cluster-name", "real"];
      const run = await runCli(["install", "--yes", ...args, "--provider", "slack", "--set", `webhook=${SLACK}`], {
        home,
      });
      expect(`${run.code} ${run.stderr}`).toBe("0 ");
      for (const line of [
        "Namespace mon-real created",
        "Deployment mon-real/mon created",
        "Secret mon-real/mon-config created",
      ])
        expect(run.stdout).toContain(line);
      const got = await kube.kubectl([
        "-n",
        "mon-real",
        "get",
        "deployment,secret,serviceaccount,service",
        "-o",
        "name",
      ]);
      expect(got.output).toContain("deployment.apps/mon");
      expect(got.output).toContain("secret/mon-config");
      const config = await kube.kubectl([
        "-n",
        "mon-real",
        "get",
        "secret",
        "mon-config",
        "-o",
        "jsonpath={.data.config\\.yaml}",
      ]);
      expect(Buffer.from(config.output, "base64").toString("utf8")).toContain("${file:/etc/mon/slack-webhook}");

      const again = await runCli(["install", "--yes", ...args, "--provider", "slack", "--set", `webhook=${SLACK}`], {
        home,
      });
      expect(again.code).toBe(0);
      expect(again.stdout).not.toMatch(/ (created|configured|updated)$/m);

      const removed = await runCli(["install", "--uninstall", "--yes", ...args], { home });
      expect(`${removed.code} ${removed.stderr}`).toBe("0 ");
      // mon's own objects (the namespace's own default ServiceAccount goes with the namespace, in its own time).
      const left = await kube.kubectl([
        "-n",
        "mon-real",
        "get",
        "deployment/mon",
        "serviceaccount/mon",
        "service/mon",
        "--ignore-not-found",
        "-o",
        "name",
      ]);
      expect(left.output.trim()).toBe("");
      const grants = await kube.kubectl(["get", "clusterrolebinding", "-o", "name"]);
      expect(grants.output).not.toMatch(/mon-real/);
    },
    180_000,
  );
});
