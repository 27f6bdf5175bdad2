import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSimPki } from "../sim/pki.ts";
import { renderKubeconfig } from "../sim/kubeconfig.ts";
import { startSimulator, type Simulator } from "../sim/simulator.ts";
import { connectKube } from "./connection.ts";
import { KubeError } from "./errors.ts";

let sim: Simulator;
const dir = mkdtempSync(join(tmpdir(), "mon-kubeconfig-"));
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.stop();
});

function kubeconfigFile(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe("connectKube over HTTPS (the TLS path mon uses in production)", () => {
  test("the kubeconfig's CA and bearer token are used", async () => {
    const conn = await connectKube({ kubeconfigPath: kubeconfigFile("token.yaml", sim.kubeconfig()) });
    expect(conn.source).toContain("token.yaml");
    const list = await conn.getJson<{ kind: string; items: unknown[] }>("/api/v1/namespaces");
    expect(list.kind).toBe("NamespaceList");
    expect(list.items.length).toBe(4);
  });

  test("a client certificate authenticates without a token", async () => {
    const conn = await connectKube({
      kubeconfigPath: kubeconfigFile("cert.yaml", sim.kubeconfig({ clientCert: true, token: false })),
    });
    expect(await conn.getJson<{ kind: string }>("/api/v1/nodes")).toMatchObject({ kind: "NodeList" });
  });

  test("no credentials is refused by the server: 403 for anonymous", async () => {
    const conn = await connectKube({ kubeconfigPath: kubeconfigFile("anon.yaml", sim.kubeconfig({ token: false })) });
    const error = await conn.getJson("/api/v1/pods").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeError);
    expect(error).toMatchObject({ failure: "forbidden", status: 403 });
    expect((error as Error).message).toContain('User "system:anonymous" cannot get path');
  });

  test("a wrong token fails as unauthorized", async () => {
    const text = renderKubeconfig({ server: sim.server.url, caCert: sim.pki.caCert, token: "not-the-token" });
    const conn = await connectKube({ kubeconfigPath: kubeconfigFile("bad-token.yaml", text) });
    const error = await conn.getJson("/api/v1/pods").catch((e: unknown) => e);
    expect(error).toMatchObject({ failure: "unauthorized", status: 401 });
  });

  test("a wrong CA fails with a clear TLS error naming the kubeconfig setting", async () => {
    const other = createSimPki("someone-else");
    const text = renderKubeconfig({ server: sim.server.url, caCert: other.caCert, token: sim.token });
    const conn = await connectKube({ kubeconfigPath: kubeconfigFile("wrong-ca.yaml", text) });
    const error = await conn.getJson("/api/v1/pods").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeError);
    expect(error).toMatchObject({ failure: "tls" });
    expect((error as Error).message).toContain(`TLS verification of ${sim.server.url} failed`);
    expect((error as Error).message).toContain("certificate-authority");
  });

  test("insecure-skip-tls-verify connects without the CA", async () => {
    const text = renderKubeconfig({ server: sim.server.url, caCert: sim.pki.caCert, token: sim.token }).replace(
      /certificate-authority-data: .*/,
      "insecure-skip-tls-verify: true",
    );
    const conn = await connectKube({ kubeconfigPath: kubeconfigFile("insecure.yaml", text) });
    expect(await conn.getJson<{ kind: string }>("/api/v1/namespaces")).toMatchObject({ kind: "NamespaceList" });
  });

  test("in-cluster: the ServiceAccount token and ca.crt are read from the mounted files, without a kubeconfig library", async () => {
    const root = mkdtempSync(join(tmpdir(), "mon-incluster-"));
    const sa = join(root, "var/run/secrets/kubernetes.io/serviceaccount");
    mkdirSync(sa, { recursive: true });
    writeFileSync(join(sa, "token"), `${sim.token}\n`);
    writeFileSync(join(sa, "ca.crt"), sim.pki.caCert);
    const url = new URL(sim.server.url);
    const env = { KUBERNETES_SERVICE_HOST: url.hostname, KUBERNETES_SERVICE_PORT: url.port };
    const conn = await connectKube({ env, serviceAccountRoot: root });
    expect(conn.source).toBe("in-cluster");
    expect(conn.server).toBe(`https://${url.hostname}:${url.port}`);
    expect(await conn.getJson<{ kind: string }>("/api/v1/namespaces")).toMatchObject({ kind: "NamespaceList" });
    expect(await conn.authorization()).toBe(`Bearer ${sim.token}`);
    // A missing mount is named, not a raw ENOENT.
    const error = await connectKube({ env, serviceAccountRoot: join(root, "nowhere") }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeError);
    expect((error as Error).message).toMatch(
      /^KUBERNETES_SERVICE_HOST is set but .*\/var\/run\/secrets\/kubernetes\.io\/serviceaccount\/token does not exist: mount the ServiceAccount token/,
    );
  });

  test("connection refused is a network error", async () => {
    const text = renderKubeconfig({ server: "https://127.0.0.1:1", caCert: sim.pki.caCert, token: sim.token });
    const conn = await connectKube({ kubeconfigPath: kubeconfigFile("refused.yaml", text) });
    expect(await conn.getJson("/api").catch((e: unknown) => e)).toMatchObject({ failure: "network" });
  });
});
