import { describe, expect, test } from "bun:test";
import { parseDuration } from "./duration.ts";
import { parseBool, parseQuantity, readEnvironment } from "./env.ts";
import { parseTemplate, renderTemplate } from "./template.ts";

describe("environment (spec 7.2, 8)", () => {
  test("the boolean grammar: true/false, 1/0, on/off, yes/no, any case; empty is unset", () => {
    for (const t of ["true", "TRUE", "1", "on", "Yes"]) expect(parseBool(t)).toBe(true);
    for (const f of ["false", "False", "0", "OFF", "no"]) expect(parseBool(f)).toBe(false);
    for (const unset of [undefined, "", "  "]) expect(parseBool(unset)).toBeUndefined();
    for (const bad of ["y", "enabled", "2"]) expect(parseBool(bad)).toBe("invalid");
  });

  test("Kubernetes quantities", () => {
    expect([
      parseQuantity("2Gi"),
      parseQuantity("500M"),
      parseQuantity("1e3"),
      parseQuantity("1.5Ki"),
      parseQuantity("100m"),
    ]).toEqual([2 * 2 ** 30, 500e6, 1000, 1536, 0.1]);
    expect([parseQuantity("2 gigs"), parseQuantity("Gi"), parseQuantity("")]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  test("CI: any value except empty, false, 0, no, off", () => {
    for (const ci of ["true", "1", "github", "yes"]) expect(readEnvironment({ CI: ci }).runtime.ci).toBe(true);
    for (const not of ["", "false", "0", "No", "off"]) expect(readEnvironment({ CI: not }).runtime.ci).toBe(false);
  });

  test("defaults and the state-lock Lease name", () => {
    const { runtime, problems } = readEnvironment({});
    expect(problems).toEqual([]);
    expect(runtime).toMatchObject({ dataDir: "/var/lib/mon", podNamespace: "mon", skipUpgradeCheck: false, ci: false });
    expect(runtime.podName.length).toBeGreaterThan(0);
    expect(readEnvironment({ MON_LEADER_ELECTION_NAME: "exact", MON_INSTALLATION_ID: "id" }).runtime.leaseName).toBe(
      "exact",
    );
    expect(readEnvironment({ MON_INSTALLATION_ID: "id" }).runtime.leaseName).toBe("id-leader");
  });

  test("the soft memory limit: 90 % of MON_MEMORY_LIMIT; an explicit GOMEMLIMIT wins; a bad one refuses startup", () => {
    expect(readEnvironment({ MON_MEMORY_LIMIT: "1000000000" }).runtime.softMemoryLimitBytes).toBe(900_000_000);
    expect(readEnvironment({ MON_MEMORY_LIMIT: "1000000000", GOMEMLIMIT: "512MiB" }).runtime.softMemoryLimitBytes).toBe(
      512 * 2 ** 20,
    );
    expect(readEnvironment({}).runtime.softMemoryLimitBytes).toBeUndefined();
    expect(readEnvironment({ GOMEMLIMIT: "lots" }).problems.map((p) => p.key)).toEqual(["GOMEMLIMIT"]);
  });
});

describe("templates (a documented subset of text/template)", () => {
  test("fields, spaces and trim markers", () => {
    const parsed = parseTemplate("[{{ .Message }}]\n  {{- .Text -}}  !");
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(renderTemplate(parsed.template, { Message: "m", Text: "t" })).toBe("[m]t!");
  });

  test("anything else is a parse error that says what", () => {
    expect(parseTemplate("{{.Msg}}")).toEqual({
      ok: false,
      error: "unknown action {{.Msg}} (only {{.Message}} and {{.Text}} are supported)",
    });
    expect(parseTemplate("{{ if .Text }}x{{ end }}")).toMatchObject({ ok: false });
    expect(parseTemplate("a {{.Text")).toEqual({ ok: false, error: "unclosed action at offset 2" });
    expect(parseTemplate("no actions at all")).toMatchObject({ ok: true });
  });
});

describe("durations", () => {
  test("Go-style durations in milliseconds", () => {
    expect([
      parseDuration("500ms"),
      parseDuration("30s"),
      parseDuration("5m"),
      parseDuration("1h30m"),
      parseDuration("1.5s"),
    ]).toEqual([500, 30_000, 300_000, 5_400_000, 1_500]);
    expect(() => parseDuration("30")).toThrow('"30" is not a duration');
  });
});
