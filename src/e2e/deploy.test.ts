import { afterEach, describe, expect, test } from "bun:test";
import { deployFiles } from "../../scripts/gen-deploy.ts";
import { readFileSync } from "node:fs";
import { KNOWN_KINDS, kindKey } from "../kube/kinds.ts";
import { waitUntil } from "../testing/capture-server.ts";
import { crashPod, seedShop } from "../testing/cluster.ts";
import { grantsOf, type Manifest, renderOverlay, renderVariant, unknownFields } from "../testing/manifests.ts";
import { startTestBed, type TestBed } from "../testing/replicas.ts";
import { realKube, realKubeTest } from "../testing/real-kube.ts";
import { simRequest } from "../testing/sim-client.ts";
import { stringify } from "yaml";

/** The variants a user composes (docs/install.md), in any order. */
const VARIANTS: readonly (readonly string[])[] = [
  [],
  ["least-privilege"],
  ["no-secrets"],
  ["least-privilege", "no-secrets"],
  ["no-secrets", "least-privilege"],
  ["ha"],
  ["network-policy"],
  ["least-privilege", "no-secrets", "ha", "network-policy"],
  ["host-network"],
];
const label = (components: readonly string[]) => (components.length ? components.join(" + ") : "base");
const rendered = new Map<string, Manifest[]>();
/** Each variant rendered once (kubectl kustomize takes most of a second). */
const render = (components: readonly string[]) => {
  const key = components.join(",");
  if (!rendered.has(key)) rendered.set(key, renderVariant(components));
  return structuredClone(rendered.get(key)!);
};

const deployment = (objects: Manifest[]) =>
  objects.find((o) => o.kind === "Deployment") as Manifest & {
    spec: {
      replicas: number;
      strategy: { rollingUpdate: object };
      template: { spec: { containers: { env: { name: string; value?: string }[]; securityContext: object }[] } };
    };
  };
const envOf = (objects: Manifest[]) =>
  Object.fromEntries(
    deployment(objects)
      .spec.template.spec.containers[0]!.env.filter((e) => e.value !== undefined)
      .map((e) => [e.name, e.value!]),
  );

describe("plain manifests (deploy/kustomize): every variant renders and every object is valid", () => {
  test("the generated RBAC files are current (bun scripts/gen-deploy.ts)", () => {
    for (const [path, wanted] of deployFiles()) expect(readFileSync(path, "utf8"), path).toBe(wanted);
  });

  for (const components of VARIANTS) {
    test(`${label(components)}: kubectl kustomize renders it; no object has a field its kind does not know`, () => {
      const objects = render(components);
      expect(objects.map((o) => o.kind)).toEqual(expect.arrayContaining(["Namespace", "ClusterRole", "Deployment"]));
      const problems = objects.flatMap((o) => unknownFields(o).map((f) => `${o.kind}/${o.metadata.name}: ${f}`));
      expect(problems).toEqual([]);
      // Hardening (spec 5.6) holds in every variant.
      expect(deployment(objects).spec.template.spec.containers[0]!.securityContext).toEqual({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ["ALL"] },
      });
      const ns = objects.find((o) => o.kind === "Namespace") as Manifest & { metadata: { labels: object } };
      // The restricted profile, enforced but with host-network (a host namespace), where it is still audited and warned of.
      expect(ns.metadata.labels).toMatchObject({
        "pod-security.kubernetes.io/enforce": components.includes("host-network") ? "privileged" : "restricted",
        "pod-security.kubernetes.io/warn": "restricted",
      });
    });
  }

  test("the image's build context leaves out the host's node_modules and dist (COPY . . cannot overwrite the stage's)", () => {
    const ignored = readFileSync(new URL("../../.dockerignore", import.meta.url), "utf8").split("\n");
    expect(ignored).toEqual(expect.arrayContaining(["node_modules", "dist"]));
    expect(readFileSync(new URL("../../Dockerfile.distroless", import.meta.url), "utf8")).toMatch(
      /^USER 65532:65532$/m,
    );
  });

  test("the check finds a misspelt field, as kube-apiserver's strict field validation would", () => {
    const objects = render([]);
    const d = deployment(objects) as unknown as {
      spec: { template: { spec: { containers: Record<string, unknown>[] } } };
    };
    d.spec.template.spec.containers[0]!.imagePullPolice = "Always";
    expect(unknownFields(d as unknown as Manifest)).toEqual([".spec.template.spec.containers.0.imagePullPolice"]);
  });

  test("the variants differ as documented: Secrets, replicas and the state volume, the NetworkPolicy", () => {
    const secretsListed = (objects: Manifest[]) =>
      grantsOf(objects, "mon", "mon").some(
        (r) =>
          !r.namespaces && r.verbs.includes("list") && (r.resources.includes("*") || r.resources.includes("secrets")),
      );
    expect(secretsListed(render([]))).toBe(true);
    expect(secretsListed(render(["least-privilege"]))).toBe(true);
    expect(secretsListed(render(["no-secrets"]))).toBe(false);
    // No Secret permission at all, in any namespace, not even the instance Secret by name.
    for (const variant of [["no-secrets"], ["least-privilege", "no-secrets"]])
      expect(grantsOf(render(variant), "mon", "mon").filter((r) => r.resources.includes("secrets"))).toEqual([]);
    expect(secretsListed(render(["least-privilege", "no-secrets"]))).toBe(false);
    expect(secretsListed(render(["no-secrets", "least-privilege"]))).toBe(false);
    expect(envOf(render(["no-secrets"])).MON_WATCH_SECRETS).toBe("false");
    const ha = render(["ha"]);
    expect(deployment(ha).spec.replicas).toBe(2);
    expect(envOf(ha).MON_DATA_DIR).toBe("/var/lib/mon");
    expect(ha.map((o) => o.kind)).toEqual(expect.arrayContaining(["PersistentVolumeClaim", "PodDisruptionBudget"]));
    expect(render(["network-policy"]).some((o) => o.kind === "NetworkPolicy")).toBe(true);
    const host = deployment(render(["host-network"]));
    expect(host.spec.template.spec).toMatchObject({ hostNetwork: true, dnsPolicy: "ClusterFirstWithHostNet" });
    expect(host.spec.strategy.rollingUpdate).toEqual({ maxSurge: 0, maxUnavailable: 1 });
    expect(
      (render(["host-network"]).find((o) => o.kind === "Namespace")!.metadata as { labels?: object }).labels,
    ).toMatchObject({
      "pod-security.kubernetes.io/enforce": "privileged",
      "pod-security.kubernetes.io/warn": "restricted",
    });
    expect(envOf(render(["host-network"]))).toMatchObject({
      KUBERNETES_SERVICE_HOST: "127.0.0.1",
      KUBERNETES_SERVICE_PORT: "6443",
    });
    expect(render([]).some((o) => o.kind === "NetworkPolicy" || o.kind === "Secret")).toBe(false);
  });
});

describe("kustomize recipes (issue 29.13)", () => {
  const COMPONENTS = ["least-privilege", "no-secrets", "ha", "network-policy"];
  /** Every ordered selection of the components: 65 overlays. */
  const orders = (pool: readonly string[]): string[][] =>
    [[], ...pool.flatMap((c) => orders(pool.filter((x) => x !== c)).map((rest) => [c, ...rest]))].filter(
      (o, i, all) => all.findIndex((p) => p.join() === o.join()) === i,
    );
  const canonical = (objects: Manifest[]) => objects.map((o) => JSON.stringify(o)).sort();

  test("the components compose in any order: every order of every selection renders the same objects", () => {
    const all = orders(COMPONENTS);
    expect(all).toHaveLength(65);
    const bySet = new Map<string, string[]>();
    for (const order of all) {
      const key = [...order].sort().join(",");
      const got = canonical(renderVariant(order));
      const first = bySet.get(key);
      if (first) expect(got, `${order.join(" + ")} differs from ${key}`).toEqual(first);
      else bySet.set(key, got);
    }
    expect(bySet.size).toBe(16);
    // 65 renders of about 0.15 s each; more on a busy machine.
  }, 180_000);

  const doc = readFileSync(new URL("../../docs/install.md", import.meta.url), "utf8");
  const recipes = new Map(
    [...doc.matchAll(/<!-- recipe: ([\w-]+) -->\n```yaml\n([\s\S]*?)```/g)].map((m) => [m[1]!, m[2]!] as const),
  );
  const recipe = (name: string) => renderOverlay(recipes.get(name)!);

  realKubeTest("the kustomize variants and recipes on the real control plane")(
    "every variant and every recipe of docs/install.md is accepted by the real v1.32 API server (a server-side dry run)",
    async () => {
      const kube = await realKube();
      // The namespaces the objects go to exist; a dry run creates nothing, not even them.
      for (const ns of ["mon", "monitoring"]) await kube.kubectl(["create", "namespace", ns]);
      const cases: [string, Manifest[]][] = [
        ...VARIANTS.map((v): [string, Manifest[]] => [label(v), render(v)]),
        ...[...recipes.keys()].map((n): [string, Manifest[]] => [`recipe ${n}`, recipe(n)]),
      ];
      for (const [name, objects] of cases) {
        const dry = await kube.kubectl(
          ["apply", "--dry-run=server", "-f", "-"],
          objects.map((o) => stringify(o)).join("---\n"),
        );
        expect(`${name}: ${dry.status} ${dry.status === 0 ? "" : dry.output}`).toBe(`${name}: 0 `);
        expect(dry.output).toContain("deployment.apps/mon");
      }
    },
    240_000,
  );

  test("docs/install.md's recipes are found, and each renders with kubectl kustomize", () => {
    expect([...recipes.keys()].sort()).toEqual(["components", "egress", "namespace"]);
    for (const [name, text] of recipes) expect(() => renderOverlay(text), name).not.toThrow();
  });

  test("components: least privilege without Secrets, two replicas, the NetworkPolicy, the mirrored image", () => {
    const objects = recipe("components");
    expect(
      grantsOf(objects, "mon", "mon").filter((r) => r.resources.some((x) => x === "secrets" || x === "*")),
    ).toEqual([]);
    const d = deployment(objects) as unknown as {
      spec: { replicas: number; template: { spec: { containers: { image: string }[] } } };
    };
    expect(d.spec.replicas).toBe(2);
    expect(d.spec.template.spec.containers[0]!.image).toBe("registry.internal/mon:0.1.0");
    expect(objects.some((o) => o.kind === "NetworkPolicy")).toBe(true);
  });

  test("egress: the NetworkPolicy gains the proxy's port", () => {
    const policy = recipe("egress").find((o) => o.kind === "NetworkPolicy") as Manifest & {
      spec: { egress: { ports?: { port: number }[] }[] };
    };
    expect(policy.spec.egress.flatMap((e) => (e.ports ?? []).map((p) => p.port))).toContain(3128);
  });

  test("namespace: everything moves to monitoring but the kube-system Role and binding, whose subject follows", () => {
    const objects = recipe("namespace");
    const where = (kind: string, name: string) =>
      objects.find((o) => o.kind === kind && o.metadata.name === name)?.metadata.namespace;
    expect(where("Role", "mon-kube-system")).toBe("kube-system");
    expect(where("RoleBinding", "mon-kube-system")).toBe("kube-system");
    for (const o of objects.filter((o) => o.metadata.namespace && o.metadata.name !== "mon-kube-system"))
      expect(o.metadata.namespace, `${o.kind}/${o.metadata.name}`).toBe("monitoring");
    const subjects = objects.flatMap((o) => (o as { subjects?: { namespace?: string }[] }).subjects ?? []);
    expect(subjects.length).toBeGreaterThan(0);
    for (const s of subjects) expect(s.namespace).toBe("monitoring");
    // The ServiceAccount in monitoring holds the kube-system grants (the control plane's leader Leases).
    expect(grantsOf(objects, "monitoring", "mon").some((r) => r.namespaces?.includes("kube-system"))).toBe(true);
  });
});

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.stop();
  bed = undefined;
});

/** Requests the simulator answered with 403, by what was asked (from its apiserver_request_total). */
async function forbidden(): Promise<string[]> {
  const text = (await simRequest(bed!.sim, "GET", "/metrics")).text;
  return [...text.matchAll(/^apiserver_request_total\{code="403",(.*)\} \d+$/gm)].map((m) => m[1]!);
}

describe("the RBAC of each variant is what mon requests (spec 5.5)", () => {
  for (const components of [[], ["least-privilege"], ["least-privilege", "no-secrets"]] as const) {
    test(`${label(components)}: a Pro mon with exactly these grants leads, watches every kind it knows, reads logs, and is refused nothing it needs`, async () => {
      const objects = render(components);
      bed = await startTestBed();
      const { sim, hook } = bed;
      sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "kube-system" } });
      // The variant's MonConfig definition, as `kubectl apply -k` installs it.
      for (const crd of objects.filter((o) => o.kind === "CustomResourceDefinition")) sim.apply(crd as never);
      seedShop(sim, Date.now());
      crashPod(sim, "shop", "web-abc12-p0", 5, Date.now());
      const files = bed.installation("licensed");
      const token = sim.addUser("system:serviceaccount:mon:mon", grantsOf(objects, "mon", "mon"));
      const env = envOf(objects);
      const r = await bed.replica(files, "mon-0", {
        kubeconfig: sim.kubeconfigFor(token),
        env: {
          MON_INSTALLATION_ID: env.MON_INSTALLATION_ID!,
          MON_CRD_ENABLED: env.MON_CRD_ENABLED!,
          ...(env.MON_WATCH_SECRETS ? { MON_WATCH_SECRETS: env.MON_WATCH_SECRETS } : {}),
        },
      });
      const fail = () => (error: Error) => {
        throw new Error(`${error.message}\n${r.log.join("")}`);
      };
      const ready = () =>
        fetch(`${r.health}/readyz`).then(
          (res) => res.status === 200,
          () => false,
        );
      await waitUntil(ready, "ready", 30_000).catch(fail());
      // Pro through the license path: the instance Secret was written by name.
      const health = await (await fetch(`${r.health}/health`)).json();
      expect(health.stateLock).toBe("held");
      // The overlay is on in every variant, and its list/watch of MonConfig is granted.
      expect(env.MON_CRD_ENABLED).toBe("true");
      expect(health.components["crd-watcher"]).toMatchObject({ state: "ok" });
      // After the startup summary, a new crash loop is announced on its own with its log lines (pods/log).
      await waitUntil(() => hook.requests.some((q) => q.json().delivery === "startup summary"), "the summary", 30_000);
      crashPod(sim, "shop", "api-abc12-p0", 5, Date.now());
      await waitUntil(
        () =>
          hook.requests.some((q) => q.json().action === "announce" && q.json().incidentId === "Deployment/shop/api"),
        "the announce",
        30_000,
      ).catch(fail());
      // Every kind mon knows and the simulator serves is covered; Secrets only where they are granted.
      const denied = (
        (await (await fetch(`${r.health}/health`)).json()).coverage.kinds as { kind: string; reason: string }[]
      )
        .filter((k) => k.reason === "permission_denied")
        .map((k) => k.kind);
      const known = KNOWN_KINDS.map(kindKey).filter((k) => k !== "secrets" || !env.MON_WATCH_SECRETS);
      expect(denied.filter((k) => known.includes(k))).toEqual([]);
      // Never refused — but without Secret permission the license's instance Secret is, and Pro goes on with
      // its instance key in memory (docs/install.md).
      const refused = await forbidden();
      if (env.MON_WATCH_SECRETS) {
        expect(refused.length).toBeGreaterThan(0);
        expect(refused.filter((q) => !q.includes('resource="secrets"'))).toEqual([]);
      } else expect(refused).toEqual([]);
      expect(r.log.join("")).toContain("license: active");
    }, 90_000);
  }
});
