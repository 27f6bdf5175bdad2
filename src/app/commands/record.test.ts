import { describe, expect, test } from "bun:test";
import type { KubeObject } from "../../model/inventory.ts";
import { leakOf, SECRET_SHAPES } from "../../redact/testdata/corpus.ts";
import { hashSecretValues } from "../../kube/object-filter.ts";
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

  test("a Secret keeps its name, type and keys; each value only as a hash salted per recording, never the value or its plain hash (issue 52 item 10)", () => {
    const salt = new Uint8Array(32).fill(7);
    for (const s of SECRET_SHAPES) {
      const b64 = Buffer.from(s.secret).toString("base64");
      const secret = hashSecretValues({
        apiVersion: "v1",
        kind: "Secret",
        type: "Opaque",
        metadata: { namespace: "shop", name: "db-credentials", annotations: { note: s.text } },
        data: { password: b64, same: b64 },
      });
      const kept = cleaned(secret, salt) as KubeObject & { data: Record<string, string>; type: string };
      const text = JSON.stringify(kept);
      expect([s.name, leakOf(text, s.secret) ?? "none"]).toEqual([s.name, "none"]);
      expect(text).not.toContain(b64);
      expect(text).not.toContain(String((secret.data as Record<string, string>).password).slice("sha256:".length));
      expect(Object.keys(kept.data)).toEqual(["password", "same"]);
      expect(kept.data.password).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
      // The same value is the same within a recording (a change is still seen), another in the next one.
      expect(kept.data.same).toBe(kept.data.password);
      expect((cleaned(secret, new Uint8Array(32).fill(8)) as typeof kept).data.password).not.toBe(kept.data.password);
      expect([kept.metadata.name, kept.type]).toEqual(["db-credentials", "Opaque"]);
    }
  });
});
