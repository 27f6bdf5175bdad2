import { describe, expect, test } from "bun:test";
import { createConsola } from "consola";
import { createFakeClock } from "../runtime/clock.ts";
import type { LicenseClient } from "./client.ts";
import type { InstanceRecord } from "./instance-secret.ts";
import { trustedKeys } from "./keys.ts";
import { createLicenseManager } from "./manager.ts";

/** Issue 29.6: what a user reads when a license server answers with a signature this build does not trust. */
describe("an answer this build does not trust says what happened and what to do", () => {
  const untrusted: LicenseClient = {
    activate: async () => ({
      kind: "unreachable",
      detail: "HTTP 200: the license answer is not signed by a trusted key",
      untrusted: { server: "https://127.0.0.1:8443" },
    }),
    renew: async () => ({ kind: "unreachable", detail: "timeout" }),
    release: async () => ({ kind: "unreachable", detail: "not called" }),
  };
  const run = async (build: "release" | "development") => {
    const said: string[] = [];
    let record: InstanceRecord = {};
    const manager = createLicenseManager({
      key: "MON-TRIAL-KEY",
      client: untrusted,
      store: { read: async () => record, write: async (r) => void (record = r) },
      keys: trustedKeys(build),
      build,
      clusterUuid: "uuid-1",
      clock: createFakeClock(Date.UTC(2026, 10, 26)),
      logger: createConsola({ level: 3, reporters: [{ log: (e) => void said.push(String(e.args[0])) }] }),
      onNotice: () => {},
      onEdition: () => {},
    });
    await manager.start();
    manager.stop();
    return { said: said.join("\n"), edition: manager.edition() };
  };

  test("a released binary names the server, why it cannot grant Pro, and where to read on", async () => {
    const { said, edition } = await run("release");
    expect(edition).toBe("community");
    expect(said).toContain(
      'license: https://127.0.0.1:8443 answered, but not with a signature this build trusts: a released mon accepts only the vendor\'s license server, so a test or other license server cannot turn Pro on (docs/license.md "Evaluating Pro"); mon stays Community',
    );
    expect(said).not.toContain("HTTP 200");
  });

  test("a build from source says the server is neither the vendor's nor the test server", async () => {
    expect((await run("development")).said).toContain("it is neither the vendor's nor the test license server's");
  });
});
