import { describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createExecCredentialSource } from "./exec-credential.ts";

/** A plugin script printing `output` (shell), recording each run's KUBERNETES_EXEC_INFO in `runs`. */
function plugin(output: string): { command: string; runs: () => string[] } {
  const dir = mkdtempSync(join(tmpdir(), "mon-exec-unit-"));
  const runs = join(dir, "runs");
  writeFileSync(runs, "");
  const command = join(dir, "plugin");
  writeFileSync(command, `#!/bin/sh\necho "$KUBERNETES_EXEC_INFO" >> ${runs}\n${output}\n`);
  chmodSync(command, 0o755);
  return { command, runs: () => readFileSync(runs, "utf8").split("\n").filter(Boolean) };
}

const credential = (status: Record<string, unknown>) =>
  `echo '${JSON.stringify({ apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential", status })}'`;

describe("kubeconfig exec credential plugins (issue 30)", () => {
  test("a token is cached until it expires; provideClusterInfo tells the plugin the cluster, with the kubeconfig's env", async () => {
    let now = Date.parse("2026-11-27T00:00:00Z");
    const p = plugin(
      `[ "$REGION" = eu ] || exit 3\n${credential({ token: "t1", expirationTimestamp: "2026-11-27T01:00:00Z" })}`,
    );
    const source = createExecCredentialSource(
      { command: p.command, provideClusterInfo: true, env: [{ name: "REGION", value: "eu" }] },
      { cluster: { server: "https://10.0.0.1:6443", certificateAuthorityData: "Q0E=" }, now: () => now, log: () => {} },
    );
    expect(await source.get()).toEqual({ token: "t1", expiresAt: Date.parse("2026-11-27T01:00:00Z") });
    await source.get();
    expect(p.runs()).toHaveLength(1);
    expect(JSON.parse(p.runs()[0]!)).toEqual({
      apiVersion: "client.authentication.k8s.io/v1",
      kind: "ExecCredential",
      spec: { interactive: false, cluster: { server: "https://10.0.0.1:6443", "certificate-authority-data": "Q0E=" } },
    });
    now = Date.parse("2026-11-27T01:00:01Z");
    await source.get();
    expect(p.runs()).toHaveLength(2);
  });

  test("failures name the plugin and why, and back off 1 s doubling: the plugin is not run again meanwhile", async () => {
    let now = 0;
    const said: string[] = [];
    for (const [output, why] of [
      ["echo oops >&2; exit 2", "exited 2: oops"],
      ["echo not-json", "its output is not an ExecCredential (not JSON"],
      [
        credential({ expirationTimestamp: "2030-01-01T00:00:00Z" }),
        "its ExecCredential has neither a token nor a client certificate",
      ],
      ["exec sleep 30", "no answer within 0 s; killed it"],
    ] as const) {
      const p = plugin(output);
      const source = createExecCredentialSource(
        { command: p.command },
        { now: () => now, log: (l) => said.push(l), timeoutMs: 300 },
      );
      await expect(source.get()).rejects.toThrow(`kubeconfig exec plugin plugin gave no credential: ${why}`);
      await expect(source.get()).rejects.toThrow(why);
      expect(p.runs()).toHaveLength(1);
      now += 1_000;
      await expect(source.get()).rejects.toThrow(why);
      expect(p.runs()).toHaveLength(2);
      now += 1_000; // the second wait is 2 s
      await expect(source.get()).rejects.toThrow(why);
      expect(p.runs()).toHaveLength(2);
      source.close();
    }
    expect(said[0]).toBe("kubeconfig exec plugin plugin gave no credential: exited 2: oops (trying again in 1 s)");
  });
});
