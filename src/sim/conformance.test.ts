import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fixture, FIXTURES, readWatch, simRequest } from "../testing/sim-client.ts";
import { BUILTIN_TYPES } from "./resources.ts";
import { startSimulator, type Simulator } from "./simulator.ts";

/**
 * The simulator against recorded kube-apiserver v1.32 exchanges (src/sim/testdata/kube-apiserver-v1.32),
 * field by field where a client depends on it.
 */
let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
  for (const ns of ["fx-a", "fx-b", "fx-c"]) sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
});
afterAll(async () => {
  await sim.stop();
});

const DISCOVERY: Record<string, string> = {
  "/api/v1": "discovery/api-v1.json",
  "/apis/apps/v1": "discovery/apis-apps-v1.json",
  "/apis/batch/v1": "discovery/apis-batch-v1.json",
  "/apis/discovery.k8s.io/v1": "discovery/apis-discovery.k8s.io-v1.json",
  "/apis/coordination.k8s.io/v1": "discovery/apis-coordination.k8s.io-v1.json",
  "/apis/events.k8s.io/v1": "discovery/apis-events.k8s.io-v1.json",
  "/apis/networking.k8s.io/v1": "discovery/apis-networking.k8s.io-v1.json",
  "/apis/storage.k8s.io/v1": "discovery/apis-storage.k8s.io-v1.json",
  "/apis/authorization.k8s.io/v1": "discovery/apis-authorization.k8s.io-v1.json",
  "/apis/apiextensions.k8s.io/v1": "discovery/apis-apiextensions.k8s.io-v1.json",
  "/apis/rbac.authorization.k8s.io/v1": "discovery/apis-rbac.authorization.k8s.io-v1.json",
};

describe("discovery", () => {
  for (const [path, file] of Object.entries(DISCOVERY)) {
    test(`${path}: every served resource matches kube-apiserver's entry`, async () => {
      const recorded = fixture(file).response.body;
      const ours = (await simRequest(sim, "GET", path)).json;
      expect(ours.kind).toBe("APIResourceList");
      expect(ours.groupVersion).toBe(recorded.groupVersion);
      for (const entry of ours.resources) {
        const real = recorded.resources.find((r: { name: string }) => r.name === entry.name);
        expect(real).toBeDefined();
        const { storageVersionHash: _hash, ...comparable } = real;
        expect(entry).toEqual(comparable);
      }
    });
  }

  test("/api, /apis and /apis/<group> have the recorded shapes", async () => {
    expect(Object.keys((await simRequest(sim, "GET", "/api")).json)).toEqual(
      Object.keys(fixture("discovery/api.json").response.body),
    );
    const groups = (await simRequest(sim, "GET", "/apis")).json;
    const recorded = fixture("discovery/apis.json").response.body;
    expect(groups.kind).toBe(recorded.kind);
    for (const g of groups.groups) {
      // The simulator serves each group's preferred version only (autoscaling/v1 is not served).
      const real = recorded.groups.find((r: { name: string }) => r.name === g.name);
      expect(g.preferredVersion).toEqual(real.preferredVersion);
      for (const version of g.versions) expect(real.versions).toContainEqual(version);
    }
    expect((await simRequest(sim, "GET", "/apis/apps")).json).toEqual(
      fixture("discovery/apis-apps.json").response.body,
    );
    expect(Object.keys((await simRequest(sim, "GET", "/version")).json)).toEqual(
      Object.keys(fixture("discovery/version.json").response.body),
    );
  });

  test("every built-in type of a recorded group-version is in its recorded discovery document", () => {
    const recordedNames = Object.values(DISCOVERY).flatMap((f) =>
      fixture(f).response.body.resources.map(
        (r: { name: string }) => `${fixture(f).response.body.groupVersion}/${r.name}`,
      ),
    );
    const recordedGroups = new Set(Object.values(DISCOVERY).map((f) => fixture(f).response.body.groupVersion));
    for (const t of BUILTIN_TYPES.filter((t) => recordedGroups.has(t.group ? `${t.group}/${t.version}` : t.version))) {
      expect(recordedNames).toContain(`${t.group ? `${t.group}/` : ""}${t.version}/${t.name}`);
    }
  });
});

describe("writes and their errors", () => {
  const pod = fixture("writes/pod-01-create-minimal.json");

  test("create fills the defaults a client reads, and status starts Pending with a QoS class", async () => {
    const created = await simRequest(sim, "POST", "/api/v1/namespaces/fx-c/pods", { body: pod.request.body });
    expect(created.status).toBe(201);
    const real = pod.response.body;
    expect(Object.keys(created.json)).toEqual(Object.keys(real));
    expect(created.json.status).toEqual(real.status);
    for (const field of [
      "restartPolicy",
      "terminationGracePeriodSeconds",
      "dnsPolicy",
      "serviceAccountName",
      "serviceAccount",
      "securityContext",
      "schedulerName",
      "tolerations",
      "priority",
      "enableServiceLinks",
      "preemptionPolicy",
      "nodeSelector",
    ]) {
      expect(created.json.spec[field]).toEqual(real.spec[field]);
    }
    const { volumeMounts: ourMounts, ...ourContainer } = created.json.spec.containers[0];
    const { volumeMounts: realMounts, ...realContainer } = real.spec.containers[0];
    expect(ourContainer).toEqual(realContainer);
    expect(ourMounts[0].mountPath).toBe(realMounts[0].mountPath);
    // Upstream adds three projected sources; the recording's fourth is an OpenShift artifact (INDEX.md).
    expect(created.json.spec.volumes[0].projected.sources).toEqual(real.spec.volumes[0].projected.sources.slice(0, 3));
    expect(created.json.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(created.json.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  const sameError = async (file: string, actual: Promise<{ status: number; json: any }>) => {
    const real = fixture(file).response;
    const ours = await actual;
    expect(ours.status).toBe(real.status);
    expect(ours.json).toEqual(real.body);
  };

  test("409 AlreadyExists on a duplicate create", () =>
    sameError(
      "writes/pod-04-create-duplicate-409.json",
      simRequest(sim, "POST", "/api/v1/namespaces/fx-c/pods", { body: pod.request.body }),
    ));
  test("404 NotFound on a missing pod", () =>
    sameError(
      "writes/pod-05-get-missing-404.json",
      simRequest(sim, "GET", "/api/v1/namespaces/fx-c/pods/does-not-exist"),
    ));
  test("409 Conflict on a stale resourceVersion", async () => {
    const current = (await simRequest(sim, "GET", "/api/v1/namespaces/fx-c/pods/p1")).json;
    await simRequest(sim, "PATCH", "/api/v1/namespaces/fx-c/pods/p1", {
      body: { metadata: { labels: { version: "v2" } } },
      contentType: "application/merge-patch+json",
    });
    await sameError(
      "writes/pod-07-update-stale-rv-409.json",
      simRequest(sim, "PUT", "/api/v1/namespaces/fx-c/pods/p1", { body: current }),
    );
  });
  test("415 on a patch with a plain JSON content type", () =>
    sameError(
      "writes/pod-13-patch-unsupported-media-type.json",
      simRequest(sim, "PATCH", "/api/v1/namespaces/fx-c/pods/p1", { body: {}, contentType: "application/json" }),
    ));
  test("404 for a create in a missing namespace", () =>
    sameError(
      "writes/pod-20-create-in-missing-namespace-404.json",
      simRequest(sim, "POST", "/api/v1/namespaces/fx-nope/pods", { body: pod.request.body }),
    ));
  test("400 when the body's namespace differs from the URL's", () =>
    sameError(
      "writes/pod-22-create-name-mismatch-400.json",
      simRequest(sim, "POST", "/api/v1/namespaces/fx-c/pods", {
        body: { ...pod.request.body, metadata: { name: "x", namespace: "fx-a" } },
      }),
    ));
  test("405 for POST on an object", () =>
    sameError(
      "writes/method-not-allowed-405.json",
      simRequest(sim, "POST", "/api/v1/namespaces/fx-c/pods/p1", { body: {} }),
    ));
  test("404 with the group-qualified name for a Lease, and 409 Conflict likewise", async () => {
    await sameError(
      "writes/cm-03-delete-missing-404.json",
      simRequest(sim, "DELETE", "/api/v1/namespaces/fx-c/configmaps/fx-cfg"),
    );
    sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: "fx-leases" } });
    const lease = (
      await simRequest(sim, "POST", "/apis/coordination.k8s.io/v1/namespaces/fx-leases/leases", {
        body: { metadata: { name: "fx-lock" }, spec: { holderIdentity: "a" } },
      })
    ).json;
    await simRequest(sim, "PATCH", "/apis/coordination.k8s.io/v1/namespaces/fx-leases/leases/fx-lock", {
      body: { spec: { holderIdentity: "b" } },
      contentType: "application/merge-patch+json",
    });
    await sameError(
      "leases/24-takeover-stale-rv-409.json",
      simRequest(sim, "PUT", "/apis/coordination.k8s.io/v1/namespaces/fx-leases/leases/fx-lock", { body: lease }),
    );
    await sameError(
      "leases/21-create-lease-already-exists-409.json",
      simRequest(sim, "POST", "/apis/coordination.k8s.io/v1/namespaces/fx-leases/leases", {
        body: { metadata: { name: "fx-lock" } },
      }),
    );
  });
  test("401 Unauthorized for a wrong token", () =>
    sameError("authz/30-bad-token-401.json", simRequest(sim, "GET", "/api/v1/pods", { token: "wrong" })));
  test("400 for an invalid label selector and for an unsupported field selector", async () => {
    await sameError(
      "lists/pods.labelSelector.invalid-400.json",
      simRequest(sim, "GET", "/api/v1/namespaces/fx-b/pods?labelSelector=app%20in%20fx"),
    );
    await sameError(
      "lists/pods.fieldSelector.unsupported-400.json",
      simRequest(sim, "GET", "/api/v1/namespaces/fx-b/pods?fieldSelector=spec.containers.image%3Dx"),
    );
  });

  test("merge, strategic and JSON patch; a failed JSON-patch test is 422; status writes go through the subresource only", async () => {
    const merged = await simRequest(sim, "PATCH", "/api/v1/namespaces/fx-c/pods/p1", {
      body: { metadata: { labels: { track: "stable" } } },
      contentType: "application/merge-patch+json",
    });
    expect(merged.json.metadata.labels).toMatchObject({ app: "p1", track: "stable" });
    const smp = await simRequest(sim, "PATCH", "/api/v1/namespaces/fx-c/pods/p1", {
      body: { metadata: { labels: { smp: "true" } } },
      contentType: "application/strategic-merge-patch+json",
    });
    expect(smp.json.metadata.labels).toMatchObject({ smp: "true", track: "stable" });
    const jp = await simRequest(sim, "PATCH", "/api/v1/namespaces/fx-c/pods/p1", {
      body: [{ op: "replace", path: "/metadata/labels/track", value: "canary" }],
      contentType: "application/json-patch+json",
    });
    expect(jp.json.metadata.labels.track).toBe("canary");
    await sameError(
      "writes/pod-11-json-patch-test-fails.json",
      simRequest(sim, "PATCH", "/api/v1/namespaces/fx-c/pods/p1", {
        body: [{ op: "test", path: "/metadata/labels/track", value: "stable" }],
        contentType: "application/json-patch+json",
      }),
    );
    const ignored = await simRequest(sim, "PATCH", "/api/v1/namespaces/fx-c/pods/p1", {
      body: { status: { phase: "Running" } },
      contentType: "application/merge-patch+json",
    });
    expect(ignored.json.status.phase).toBe("Pending");
    expect(ignored.json.metadata.resourceVersion).toBe(jp.json.metadata.resourceVersion);
    const status = await simRequest(sim, "PATCH", "/api/v1/namespaces/fx-c/pods/p1/status", {
      body: { status: { phase: "Running" } },
      contentType: "application/merge-patch+json",
    });
    expect(status.json.status.phase).toBe("Running");
  });

  test("DELETE of a ConfigMap answers a Success Status; of a bound pod, the pod marked for deletion", async () => {
    const cm = await simRequest(sim, "POST", "/api/v1/namespaces/fx-c/configmaps", {
      body: { metadata: { name: "fx-cfg" }, data: { a: "1" } },
    });
    const del = await simRequest(sim, "DELETE", "/api/v1/namespaces/fx-c/configmaps/fx-cfg");
    const real = fixture("writes/cm-02-delete-returns-status.json").response.body;
    expect(del.json).toEqual({ ...real, details: { ...real.details, uid: cm.json.metadata.uid } });
    const bound = await simRequest(sim, "POST", "/api/v1/namespaces/fx-c/pods", {
      body: { metadata: { name: "bound" }, spec: { nodeName: "n1", containers: [{ name: "a", image: "nginx:1.27" }] } },
    });
    const graceful = await simRequest(sim, "DELETE", `/api/v1/namespaces/fx-c/pods/bound`);
    const recorded = fixture("writes/pod-30-delete-graceful.json").response.body;
    expect(graceful.json.kind).toBe("Pod");
    expect(graceful.json.metadata.deletionGracePeriodSeconds).toBe(recorded.metadata.deletionGracePeriodSeconds);
    expect(
      Date.parse(graceful.json.metadata.deletionTimestamp) - Date.parse(bound.json.metadata.creationTimestamp),
    ).toBeGreaterThanOrEqual(29_000);
    expect((await simRequest(sim, "GET", "/api/v1/namespaces/fx-c/pods/bound")).status).toBe(200);
    const forced = await simRequest(sim, "DELETE", "/api/v1/namespaces/fx-c/pods/bound", {
      body: fixture("writes/pod-33-force-delete.json").request.body,
    });
    expect(forced.json.metadata.deletionGracePeriodSeconds).toBe(0);
    expect((await simRequest(sim, "GET", "/api/v1/namespaces/fx-c/pods/bound")).status).toBe(404);
  });
});

describe("lists", () => {
  test("typed list shape: items without kind/apiVersion, [] when empty, resourceVersion as a string", async () => {
    const real = fixture("lists/pods.ns-fx-a.empty.json").response.body;
    const empty = (await simRequest(sim, "GET", "/api/v1/namespaces/fx-a/pods")).json;
    expect(Object.keys(empty)).toEqual(Object.keys(real));
    expect(empty.items).toEqual([]);
    expect(typeof empty.metadata.resourceVersion).toBe("string");
    const pods = (await simRequest(sim, "GET", "/api/v1/namespaces/fx-c/pods")).json;
    expect(Object.keys(pods.items[0])).toEqual(Object.keys(fixture("lists/pods.ns-fx-b.json").response.body.items[0]));
  });

  test("limit and continue page through with one resourceVersion and remainingItemCount; resourceVersion=0 ignores limit", async () => {
    for (let i = 0; i < 5; i++)
      await simRequest(sim, "POST", "/api/v1/namespaces/fx-b/pods", {
        body: { metadata: { name: `page-${i}` }, spec: { containers: [{ name: "a", image: "nginx:1.27" }] } },
      });
    const page1 = (await simRequest(sim, "GET", "/api/v1/namespaces/fx-b/pods?limit=2")).json;
    const recorded = fixture("lists/pods.ns-fx-b.limit2.page1.json").response.body.metadata;
    expect(Object.keys(page1.metadata).sort()).toEqual(Object.keys(recorded).sort());
    expect(page1.metadata.remainingItemCount).toBe(3);
    const page2 = (
      await simRequest(sim, "GET", `/api/v1/namespaces/fx-b/pods?limit=2&continue=${page1.metadata.continue}`)
    ).json;
    expect(page2.metadata.resourceVersion).toBe(page1.metadata.resourceVersion);
    expect(page2.items.map((p: any) => p.metadata.name)).toEqual(["page-2", "page-3"]);
    const all = (await simRequest(sim, "GET", "/api/v1/namespaces/fx-b/pods?limit=2&resourceVersion=0")).json;
    expect(all.items).toHaveLength(5);
    expect(all.metadata.continue).toBeUndefined();
  });

  test("label selectors (equality, set-based) and the spec.nodeName field selector", async () => {
    await simRequest(sim, "POST", "/api/v1/namespaces/fx-a/pods", {
      body: {
        metadata: { name: "on-n1", labels: { app: "web", tier: "front" } },
        spec: { nodeName: "n1", containers: [{ name: "a", image: "x:1" }] },
      },
    });
    await simRequest(sim, "POST", "/api/v1/namespaces/fx-a/pods", {
      body: {
        metadata: { name: "on-n2", labels: { app: "db" } },
        spec: { nodeName: "n2", containers: [{ name: "a", image: "x:1" }] },
      },
    });
    const names = async (q: string) =>
      (await simRequest(sim, "GET", `/api/v1/pods?${q}`)).json.items.map((p: any) => p.metadata.name);
    expect(await names("labelSelector=app%3Dweb")).toEqual(["on-n1"]);
    expect(await names("labelSelector=app%20in%20(web,db),!tier")).toEqual(["on-n2"]);
    expect(await names("fieldSelector=spec.nodeName%3Dn2")).toEqual(["on-n2"]);
  });

  test("a Table for kubectl when asked for as=Table", async () => {
    const table = await simRequest(sim, "GET", "/api/v1/namespaces/fx-a/pods", {
      accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
    });
    const real = fixture("lists/pods.table.json").response.body;
    expect(table.json.kind).toBe(real.kind);
    expect(table.json.columnDefinitions.map((c: any) => c.name)).toEqual(
      real.columnDefinitions.map((c: any) => c.name).slice(0, 7),
    );
    expect(table.json.rows[0].object.kind).toBe("PartialObjectMetadata");
  });
});

describe("watch", () => {
  test("a too-old resourceVersion: HTTP 200, one ERROR event with a 410 Expired Status, then the stream ends", async () => {
    sim.store.compact();
    const { status, events } = await readWatch(
      sim,
      "/api/v1/namespaces/fx-b/pods?watch=1&allowWatchBookmarks=true&resourceVersion=1",
      5,
    );
    const recorded = JSON.parse(
      readFileSync(join(FIXTURES, "watch/pods.fx-b.too-old-rv-410.watch.ndjson"), "utf8").trim(),
    );
    expect(status).toBe(200);
    expect(events).toHaveLength(1);
    expect(Object.keys(events[0]!.object)).toEqual(Object.keys(recorded.object));
    expect(events[0]!.object).toMatchObject({ kind: "Status", status: "Failure", reason: "Expired", code: 410 });
    expect(events[0]!.object.message).toMatch(/^too old resource version: 1 \(\d+\)$/);
  });

  test("resourceVersion=0 with bookmarks: one ADDED per object, then the initial-events-end BOOKMARK with the list blueprint", async () => {
    const existing = (await simRequest(sim, "GET", "/api/v1/namespaces/fx-b/pods")).json.items.length;
    const { events } = await readWatch(
      sim,
      "/api/v1/namespaces/fx-b/pods?watch=1&resourceVersion=0&allowWatchBookmarks=true",
      existing + 1,
    );
    const lines = readFileSync(join(FIXTURES, "watch/pods.fx-b.watchlist.watch.ndjson"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const recordedBookmark = lines[lines.length - 1];
    expect(events.slice(0, existing).every((e) => e.type === "ADDED")).toBe(true);
    const bookmark = events[existing]!;
    expect(bookmark.type).toBe("BOOKMARK");
    const { resourceVersion: _ours, ...ourMeta } = bookmark.object.metadata;
    const { resourceVersion: _theirs, ...theirMeta } = recordedBookmark.object.metadata;
    expect(ourMeta).toEqual(theirMeta);
    expect({ ...bookmark.object, metadata: {} }).toEqual({ ...recordedBookmark.object, metadata: {} });
  });

  test("a filtered watch: ADDED when an object starts matching, DELETED (with its new state) when it stops", async () => {
    const rv = (await simRequest(sim, "GET", "/api/v1/namespaces/fx-c/pods")).json.metadata.resourceVersion;
    await simRequest(sim, "POST", "/api/v1/namespaces/fx-c/pods", {
      body: { metadata: { name: "sel-1" }, spec: { containers: [{ name: "a", image: "x:1" }] } },
    });
    const patch = (phase: string, message?: string) =>
      simRequest(sim, "PATCH", "/api/v1/namespaces/fx-c/pods/sel-1/status", {
        body: { status: { phase, message } },
        contentType: "application/merge-patch+json",
      });
    const { events } = await readWatch(
      sim,
      `/api/v1/namespaces/fx-c/pods?watch=1&resourceVersion=${rv}&fieldSelector=status.phase%3DRunning`,
      3,
      () => {
        void patch("Running")
          .then(() => patch("Running", "still running"))
          .then(() =>
            simRequest(sim, "PATCH", "/api/v1/namespaces/fx-c/pods/sel-1/status", {
              body: { status: { phase: "Succeeded", reason: "done" } },
              contentType: "application/merge-patch+json",
            }),
          );
      },
    );
    expect(events.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "DELETED"]);
    expect(events[2]!.object.status.phase).toBe("Succeeded");
  });

  test("a force-deleted pod arrives as MODIFIED (grace 0) then DELETED", async () => {
    const rv = (await simRequest(sim, "GET", "/api/v1/namespaces/fx-a/pods")).json.metadata.resourceVersion;
    const { events } = await readWatch(sim, `/api/v1/namespaces/fx-a/pods?watch=1&resourceVersion=${rv}`, 2, () => {
      void simRequest(sim, "DELETE", "/api/v1/namespaces/fx-a/pods/on-n1?gracePeriodSeconds=0");
    });
    expect(events.map((e) => e.type)).toEqual(["MODIFIED", "DELETED"]);
    expect(events[0]!.object.metadata.deletionGracePeriodSeconds).toBe(0);
  });
});

describe("/metrics (fixtures nonresource/metrics.json)", () => {
  test("apiserver_request_total counts answers by verb, resource and code, in the recorded text format", async () => {
    await simRequest(sim, "GET", "/api/v1/namespaces/default/configmaps");
    sim.failResource("secrets", 503);
    await simRequest(sim, "GET", "/api/v1/namespaces/default/secrets");
    sim.failResource("secrets", undefined);
    const metrics = await simRequest(sim, "GET", "/metrics", { accept: "text/plain" });
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get("content-type")).toBe(
      fixture("nonresource/metrics.json").response.headers["Content-Type"],
    );
    expect(metrics.text).toContain("# TYPE apiserver_request_total counter");
    expect(metrics.text).toMatch(
      /apiserver_request_total\{code="200",component="apiserver",dry_run="",group="",resource="configmaps",scope="",subresource="",system_client="",verb="LIST",version="v1"\} [1-9]/,
    );
    expect(metrics.text).toMatch(
      /apiserver_request_total\{code="503",[^}]*resource="secrets",[^}]*verb="LIST"[^}]*\} 1\n/,
    );
  });
});
