import { describe, expect, test } from "bun:test";
import type { KubeObject } from "../../model/inventory.ts";
import { leakOf, SECRET_SHAPES } from "../../redact/testdata/corpus.ts";
import { cleaned } from "./record.ts";

describe("what mon record keeps of an object (issue 32)", () => {
  test("no credential shape of the corpus survives in env values, command lines, annotations, ConfigMap data or messages; names, uids and images stay", () => {
    const leaks: string[] = [];
    for (const s of SECRET_SHAPES) {
      const pod: KubeObject = {
        apiVersion: "v1",
        kind: "Pod",
        metadata: {
          namespace: "shop",
          name: "api-1",
          uid: "5d0c7e3a-1f2b-4c5d-8e9f-0a1b2c3d4e5f",
          annotations: { note: s.text, "kubectl.kubernetes.io/last-applied-configuration": s.text },
        },
        spec: {
          containers: [
            {
              name: "api",
              image: "registry.example/api:1.0",
              command: ["run", s.text],
              env: [{ name: "X", value: s.text }],
            },
          ],
        },
        status: { conditions: [{ type: "Ready", status: "False", message: s.text }] },
      };
      const config: KubeObject = {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "c" },
        data: { file: s.text },
      };
      const kept = JSON.stringify([cleaned(pod), cleaned(config)]);
      if (leakOf(kept, s.secret)) leaks.push(s.name);
      expect(kept).toContain('"uid":"5d0c7e3a-1f2b-4c5d-8e9f-0a1b2c3d4e5f"');
      expect(kept).toContain('"image":"registry.example/api:1.0"');
    }
    expect(leaks).toEqual([]);
  });
});
