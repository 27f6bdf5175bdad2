import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import * as v from "valibot";
import explainCommand from "../../cli/commands/explain.ts";
import { ConfigSchema } from "../../config/schema.ts";
import { KNOWN_KINDS } from "../../kube/kinds.ts";
import { explainTarget } from "./explain-target.ts";

/** Any letter case of `s`. */
const anyCase = (s: string) =>
  fc
    .array(fc.boolean(), { minLength: s.length, maxLength: s.length })
    .map((upper) => [...s].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join(""));
const name = fc.stringMatching(/^[a-z0-9]([a-z0-9.-]{0,20}[a-z0-9])?$/);
const CLUSTER = new Set(["Namespace", "Node", "PersistentVolume", "StorageClass", "VolumeAttachment", "CSIDriver"]);

describe("the object mon explain is asked about, named as kubectl names it (issue 41)", () => {
  test("every known kind by its name, plural or plural.group, in any case, in every form, is the same key", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...KNOWN_KINDS),
        fc.integer({ min: 0, max: 2 }),
        name,
        name,
        (kind, alias, ns, object) =>
          fc.assert(
            fc.property(
              anyCase([kind.kind, kind.resource, `${kind.resource}.${kind.group}`.replace(/\.$/, "")][alias]!),
              (typed) => {
                const scoped = !CLUSTER.has(kind.kind);
                const key = scoped ? `${kind.kind}/${ns}/${object}` : `${kind.kind}//${object}`;
                const forms = scoped
                  ? [
                      explainTarget(`${typed}/${ns}/${object}`),
                      explainTarget(`${typed}/${object}`, undefined, ns),
                      explainTarget(typed, object, ns),
                      explainTarget(`${typed}/${ns}/${object}`, undefined, ns),
                    ]
                  : [explainTarget(`${typed}/${object}`), explainTarget(typed, object)];
                for (const f of forms) expect(f).toEqual({ key });
              },
            ),
            { numRuns: 3 },
          ),
      ),
      { seed: 41, numRuns: 300 },
    );
  });

  test("kubectl's short names; a namespaced kind without -n is in default, as kubectl has it", () => {
    expect(explainTarget("deploy/shop/web")).toEqual({ key: "Deployment/shop/web" });
    expect(explainTarget("no/worker-3")).toEqual({ key: "Node//worker-3" });
    expect(explainTarget("sts", "db", "data")).toEqual({ key: "StatefulSet/data/db" });
    expect(explainTarget("po/api-1")).toEqual({ key: "Pod/default/api-1" });
  });

  test("an unknown kind, a namespace on a cluster-scoped kind, two namespaces or a malformed name is an error saying why", () => {
    expect(explainTarget("deploymnt/shop/web")).toMatchObject({
      error: expect.stringContaining('mon knows no kind named "deploymnt" (did you mean Deployment?)'),
    });
    expect(explainTarget("widget/shop/w")).toMatchObject({
      error: expect.stringContaining("it explains objects of the kinds it watches (Namespace, Node, Pod"),
    });
    expect(explainTarget("node/shop/n1")).toEqual({ error: "Node objects have no namespace: name it as Node/n1" });
    expect(explainTarget("node/n1", undefined, "shop")).toEqual({
      error: "Node objects have no namespace: drop -n shop",
    });
    expect(explainTarget("pod/a/b", undefined, "c")).toEqual({ error: "two namespaces: a in the name and c from -n" });
    for (const bad of ["pod", "pod/", "pod//x", "a/b/c/d"])
      expect(explainTarget(bad)).toMatchObject({ error: expect.stringContaining("name it as KIND/NAMESPACE/NAME") });
  });

  test("the default --url is the health server's default address", () => {
    const port = v.parse(ConfigSchema, {}).healthCheck.port;
    const args = explainCommand.args as Record<string, { default?: unknown }>;
    expect(args.url?.default).toBe(`http://127.0.0.1:${port}`);
  });
});
