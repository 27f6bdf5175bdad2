import { describe, expect, test } from "bun:test";
import type { KubeObject } from "../model/inventory.ts";
import { inventoryOf, workload } from "../testing/inventory.ts";
import { ownerOf } from "./owner.ts";

const ns = (labels: Record<string, string> = {}, annotations: Record<string, string> = {}): KubeObject => ({
  kind: "Namespace",
  apiVersion: "v1",
  metadata: { name: "shop", labels, annotations },
});
const root = { kind: "Deployment", namespace: "shop", name: "api" };
const withMeta = (o: KubeObject, labels: Record<string, string>, annotations: Record<string, string> = {}) => ({
  ...o,
  metadata: { ...o.metadata, labels, annotations },
});

describe("incident owner (spec 2.6)", () => {
  test("label before annotation on the root, then the namespace; none when nobody is named", () => {
    const api = workload("shop", "api");
    expect(
      ownerOf(
        root,
        inventoryOf(
          withMeta(api.deployment, { "mon.io/owner": "team-api" }, { "mon.io/owner": "other" }),
          ns({ "mon.io/owner": "team-shop" }),
        ),
      ),
    ).toBe("team-api");
    expect(
      ownerOf(
        root,
        inventoryOf(
          withMeta(api.deployment, {}, { "mon.io/owner": "team-annotated" }),
          ns({ "mon.io/owner": "team-shop" }),
        ),
      ),
    ).toBe("team-annotated");
    expect(ownerOf(root, inventoryOf(api.deployment, ns({}, { "mon.io/owner": "team-shop" })))).toBe("team-shop");
    expect(ownerOf(root, inventoryOf(api.deployment, ns()))).toBeUndefined();
  });

  test("up the owner chain: a pod root takes its Deployment's owner", () => {
    const api = workload("shop", "api");
    const pod: KubeObject = {
      kind: "Pod",
      apiVersion: "v1",
      metadata: {
        namespace: "shop",
        name: "api-1",
        ownerReferences: [
          {
            apiVersion: "apps/v1",
            kind: "ReplicaSet",
            name: api.replicaSet.metadata.name,
            uid: api.replicaSet.metadata.uid,
            controller: true,
          },
        ],
      },
    };
    expect(
      ownerOf(
        { kind: "Pod", namespace: "shop", name: "api-1" },
        inventoryOf(withMeta(api.deployment, { "mon.io/owner": "team-api" }), api.replicaSet, pod, ns()),
      ),
    ).toBe("team-api");
  });
});
