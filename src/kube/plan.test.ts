import { describe, expect, test } from "bun:test";
import type { ServedResource } from "./discovery.ts";
import { planWatches } from "./plan.ts";

const r = (group: string, version: string, resource: string, kind: string, namespaced = true): ServedResource => ({
  group,
  version,
  resource,
  kind,
  namespaced,
});
const SERVED: ServedResource[] = [
  r("", "v1", "pods", "Pod"),
  r("", "v1", "nodes", "Node", false),
  r("", "v1", "namespaces", "Namespace", false),
  r("", "v1", "secrets", "Secret"),
  r("apps", "v1", "deployments", "Deployment"),
  r("coordination.k8s.io", "v1", "leases", "Lease"),
  r("events.k8s.io", "v1", "events", "Event"),
  r("gateway.networking.k8s.io", "v1", "httproutes", "HTTPRoute"),
  r("example.com", "v1", "widgets", "Widget"),
  r("rbac.authorization.k8s.io", "v1", "roles", "Role"),
];

describe("planWatches (spec 1.1, 1.5, 5.5)", () => {
  const plan = planWatches(SERVED, { watchSecrets: true });
  const byKind = new Map(plan.targets.map((t) => [t.group ? `${t.group}/${t.resource}` : t.resource, t]));

  test("known kinds are watched in full, required ones marked; Gateway routes in full when installed", () => {
    expect(byKind.get("pods")).toMatchObject({ path: "/api/v1/pods", required: true, metadataOnly: false });
    expect(byKind.get("apps/deployments")).toMatchObject({
      path: "/apis/apps/v1/deployments",
      required: true,
      metadataOnly: false,
    });
    expect(byKind.get("gateway.networking.k8s.io/httproutes")).toMatchObject({ metadataOnly: false, required: false });
  });

  test("every other served kind, custom resources included, is watched for its metadata", () => {
    expect(byKind.get("example.com/widgets")).toMatchObject({
      path: "/apis/example.com/v1/widgets",
      metadataOnly: true,
      required: false,
    });
    expect(byKind.get("rbac.authorization.k8s.io/roles")).toMatchObject({ metadataOnly: true });
  });

  test("Leases only in kube-system; events.k8s.io Events are core Events and not watched twice; Secrets marked sensitive", () => {
    expect(byKind.get("coordination.k8s.io/leases")).toMatchObject({
      path: "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases",
      namespace: "kube-system",
    });
    expect(byKind.has("events.k8s.io/events")).toBe(false);
    expect(byKind.get("secrets")).toMatchObject({ sensitive: true });
  });

  test("known kinds not served: api_unavailable, or optional APIs listed apart", () => {
    expect(plan.coverage).toContainEqual({ kind: "batch/jobs", reason: "api_unavailable" });
    expect(plan.optionalMissing).toEqual([
      "gateway.networking.k8s.io/grpcroutes",
      "gateway.networking.k8s.io/tlsroutes",
      "gateway.networking.k8s.io/tcproutes",
      "gateway.networking.k8s.io/udproutes",
      "cert-manager.io/certificates",
      "storage.k8s.io/volumeattachments",
    ]);
  });

  test("watch.secrets=false: Secrets not watched, disabled_by_config", () => {
    const off = planWatches(SERVED, { watchSecrets: false });
    expect(off.targets.some((t) => t.resource === "secrets")).toBe(false);
    expect(off.coverage).toContainEqual({ kind: "secrets", reason: "disabled_by_config" });
  });
});
