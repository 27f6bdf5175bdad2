import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { fixture, readWatch, simRequest } from "../testing/sim-client.ts";
import { startSimulator, type Simulator } from "./simulator.ts";

/**
 * CustomResourceDefinitions in the simulator against the recorded kube-apiserver exchanges (testdata crd/): a
 * definition written through the API is established and discovered, its versions share one stored object,
 * objects are pruned and validated against the schema, and mon's own MonConfig definition (deploy/crd) is
 * served with the rules spec 2.5 gives it.
 */
let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
  for (const ns of ["fx-b", "fx-c", "mon"]) sim.apply({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
});
afterAll(async () => {
  await sim.stop();
});

const body = (file: string) => fixture(`crd/${file}`).request.body;
const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

describe("a CustomResourceDefinition written through the API", () => {
  beforeAll(async () => {
    for (const file of ["01-create-widgets.example.com.json", "02-create-monconfigs.mon.example.io.json"]) {
      const created = await simRequest(sim, "POST", CRDS, { body: body(file) });
      expect(created.status).toBe(201);
    }
  });

  test("is Established with its accepted names and stored version at once", async () => {
    const recorded = fixture("crd/04-get-monconfigs-crd-established.json").response.body;
    const ours = (await simRequest(sim, "GET", `${CRDS}/monconfigs.mon.example.io`)).json;
    const strip = (s: any) => ({
      ...s,
      conditions: s.conditions.map(({ lastTransitionTime: _t, ...c }: any) => c),
    });
    expect(strip(ours.status)).toEqual(strip(recorded.status));
  });

  test("its group and both versions are discovered, the storage version preferred", async () => {
    expect((await simRequest(sim, "GET", "/apis/mon.example.io")).json).toEqual(
      fixture("crd/09-discovery-mon.example.io.json").response.body,
    );
    const recorded = fixture("crd/11-discovery-mon.example.io-v1alpha1.json").response.body;
    const ours = (await simRequest(sim, "GET", "/apis/mon.example.io/v1alpha1")).json;
    expect(ours.resources.map((r: any) => r.name)).toEqual(recorded.resources.map((r: any) => r.name));
    const groups = (await simRequest(sim, "GET", "/apis")).json.groups;
    expect(groups.filter((g: any) => g.name === "mon.example.io")).toHaveLength(1);
  });

  test("an object written as v1beta1 is read as v1alpha1, with the deprecation warning", async () => {
    const created = await simRequest(sim, "POST", "/apis/mon.example.io/v1beta1/namespaces/fx-c/monconfigs", {
      body: body("20-create-monconfig-v1beta1.json"),
    });
    expect(created.status).toBe(201);
    // The schema's default (intervalSeconds: 30) is not applied by the simulator; the rest is as recorded.
    const recorded = fixture("crd/20-create-monconfig-v1beta1.json").response.body.spec;
    const { intervalSeconds: _d, ...withoutDefault } = recorded;
    expect(created.json.spec).toEqual(withoutDefault);
    const alpha = await simRequest(sim, "GET", "/apis/mon.example.io/v1alpha1/namespaces/fx-c/monconfigs/mc1");
    expect(alpha.json.apiVersion).toBe("mon.example.io/v1alpha1");
    expect(alpha.json.metadata.uid).toBe(created.json.metadata.uid);
    expect(alpha.headers.get("warning")).toBe(
      fixture("crd/21-get-monconfig-via-v1alpha1.json").response.headers.Warning,
    );
  });

  test("an invalid object is refused with kube-apiserver's message; unknown fields are pruned", async () => {
    const recorded = fixture("crd/13-create-widget-invalid.json").response.body;
    const refused = await simRequest(sim, "POST", "/apis/example.com/v1/namespaces/fx-c/widgets", {
      body: body("13-create-widget-invalid.json"),
    });
    expect(refused.status).toBe(422);
    expect(refused.json.details.causes).toEqual(
      expect.arrayContaining(recorded.details.causes.map((c: any) => expect.objectContaining(c))),
    );
    const pruned = await simRequest(sim, "POST", "/apis/example.com/v1/namespaces/fx-c/widgets", {
      body: body("14-create-widget-unknown-field-warn.json"),
    });
    expect(pruned.status).toBe(201);
    expect(pruned.json.spec).toEqual(fixture("crd/14-create-widget-unknown-field-warn.json").response.body.spec);
  });

  test("a watch on the deprecated version sees changes written through the storage version", async () => {
    const watch = readWatch(
      sim,
      "/apis/mon.example.io/v1alpha1/namespaces/fx-c/monconfigs?watch=true&resourceVersion=0",
      2,
      () => {
        void simRequest(sim, "POST", "/apis/mon.example.io/v1beta1/namespaces/fx-c/monconfigs", {
          body: { apiVersion: "mon.example.io/v1beta1", kind: "MonConfig", metadata: { name: "mc2" }, spec: {} },
        });
      },
    );
    const { events } = await watch;
    expect(events.map((e) => [e.type, e.object.metadata.name, e.object.apiVersion])).toEqual([
      ["ADDED", "mc1", "mon.example.io/v1alpha1"],
      ["ADDED", "mc2", "mon.example.io/v1alpha1"],
    ]);
  });

  test("deleting the definition deletes its objects and stops serving it", async () => {
    expect((await simRequest(sim, "DELETE", `${CRDS}/widgets.example.com`)).status).toBe(200);
    expect((await simRequest(sim, "GET", "/apis/example.com/v1/namespaces/fx-c/widgets")).status).toBe(404);
    expect((await simRequest(sim, "GET", "/apis/example.com")).status).toBe(404);
  });
});

describe("mon's MonConfig definition (deploy/crd/monconfigs.mon.io.yaml)", () => {
  const PATH = "/apis/mon.io/v1beta1/namespaces/mon/monconfigs";
  const overlay = (name: string, spec: unknown) => ({
    apiVersion: "mon.io/v1beta1",
    kind: "MonConfig",
    metadata: { name },
    spec,
  });
  beforeAll(async () => {
    const crd = parse(
      readFileSync(join(import.meta.dirname, "..", "..", "deploy", "crd", "monconfigs.mon.io.yaml"), "utf8"),
    );
    expect((await simRequest(sim, "POST", CRDS, { body: crd })).status).toBe(201);
  });

  test("accepts an overlay within the rules", async () => {
    const ok = await simRequest(sim, "POST", PATH, {
      body: overlay("ok", { resyncSeconds: 0, app: { logFormatter: "json" }, heartbeatMonitor: { interval: 60 } }),
    });
    expect(ok.status).toBe(201);
    const thirty = await simRequest(sim, "POST", PATH, { body: overlay("thirty", { resyncSeconds: 30 }) });
    expect(thirty.status).toBe(201);
  });

  test.each([
    [
      "resyncSeconds neither 0 nor at least 30",
      { resyncSeconds: 10 },
      "spec.resyncSeconds",
      "must be 0 (off) or at least 30",
    ],
    [
      "a logFormatter other than text or json",
      { app: { logFormatter: "xml" } },
      "spec.app.logFormatter",
      "Unsupported value",
    ],
    [
      "a negative heartbeat interval",
      { heartbeatMonitor: { interval: -1 } },
      "spec.heartbeatMonitor.interval",
      "greater than or equal to 0",
    ],
  ])("refuses %s (422 naming the field)", async (_what, spec, field, message) => {
    const refused = await simRequest(sim, "POST", PATH, { body: overlay("bad", spec) });
    expect(refused.status).toBe(422);
    expect(refused.json.details.causes[0].field).toBe(field);
    expect(refused.json.message).toContain(message);
  });

  test("prunes what the overlay may not set (providers, the health server, kubelet TLS)", async () => {
    const created = await simRequest(sim, "POST", PATH, {
      body: overlay("forbidden", {
        alert: { webhook: { url: "https://example.test" } },
        healthCheck: { statusEndpoint: true },
        kubelet: { insecureSkipVerify: true },
        resyncSeconds: 60,
      }),
    });
    expect(created.status).toBe(201);
    expect(created.json.spec).toEqual({ resyncSeconds: 60, kubelet: {} });
  });

  test("a definition with a rule outside the simulator's CEL subset is refused, as one that does not compile", async () => {
    const crd = structuredClone(body("01-create-widgets.example.com.json"));
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec["x-kubernetes-validations"] = [
      { rule: "self.all(x, x > 1)" },
    ];
    const refused = await simRequest(sim, "POST", CRDS, { body: crd });
    expect(refused.status).toBe(422);
  });
});
