import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { inClusterCredentials, SERVICE_ACCOUNT_DIR, tokenServiceAccount } from "./in-cluster.ts";

/** A JWT-shaped token (unsigned: mon never verifies it, the API server does) with `claims` as its payload. */
const jwt = (claims: object) =>
  `${Buffer.from('{"alg":"RS256"}').toString("base64url")}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.sig`;

const claims = (uid: string) => ({
  "kubernetes.io": { namespace: "mon", pod: { name: "mon-0", uid: "p" }, serviceaccount: { name: "mon", uid } },
});

describe("the in-cluster ServiceAccount", () => {
  test("a projected token names the ServiceAccount it acts as; any other string names none and never throws", () => {
    expect(tokenServiceAccount(jwt(claims("u-1")))).toEqual({ namespace: "mon", name: "mon", uid: "u-1" });
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        expect(tokenServiceAccount(`${a}.${b}`)).toBeUndefined();
      }),
    );
    expect(tokenServiceAccount(jwt({ sub: "system:serviceaccount:mon:mon" }))).toBeUndefined();
  });

  test("a token rotated as the kubelet rotates it (the ..data link swapped) is used by the very next request", async () => {
    const root = mkdtempSync(join(tmpdir(), "mon-token-"));
    const dir = join(root, SERVICE_ACCOUNT_DIR);
    mkdirSync(dir, { recursive: true });
    // The kubelet's atomic writer: files in a timestamped folder, `..data` links to it, each name links through it.
    const publish = (stamp: string, token: string) => {
      mkdirSync(join(dir, stamp));
      writeFileSync(join(dir, stamp, "token"), token);
      writeFileSync(join(dir, stamp, "ca.crt"), "CA");
      symlinkSync(stamp, join(dir, "..data_tmp"));
      renameSync(join(dir, "..data_tmp"), join(dir, "..data"));
    };
    publish("..2026_12_02_10_00_00.1", jwt(claims("u-1")));
    symlinkSync("..data/token", join(dir, "token"));
    symlinkSync("..data/ca.crt", join(dir, "ca.crt"));
    const credentials = inClusterCredentials({ KUBERNETES_SERVICE_HOST: "10.0.0.1" }, root);
    expect(credentials.serviceAccount?.()).toMatchObject({ uid: "u-1" });
    const first = (await credentials.headers()).authorization;
    publish("..2026_12_02_10_48_00.2", jwt(claims("u-2")));
    const second = (await credentials.headers()).authorization;
    expect(second).not.toBe(first);
    expect(second).toBe(`Bearer ${jwt(claims("u-2"))}`);
    expect(credentials.serviceAccount?.()).toMatchObject({ uid: "u-2" });
  });
});
