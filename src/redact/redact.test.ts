import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { evidence } from "../detect/evidence.ts";
import { cut } from "./cut.ts";
import { redact } from "./redact.ts";
import { HARMLESS_SHAPES, leakOf, SECRET_SHAPES } from "./testdata/corpus.ts";

describe("redact (spec 6.8)", () => {
  const cases: [string, string][] = [
    [
      "dial postgres://checkout:s3cret@db:5432/orders failed",
      "dial postgres://checkout:[redacted]@db:5432/orders failed",
    ],
    ["Authorization: Bearer eyJhbGciOi.abc", "Authorization: Bearer [redacted]"],
    ["password=hunter2 user=bob", "password=[redacted] user=bob"],
    ['{"api_key": "abc123"}', '{"api_key": "[redacted]"}'],
    ["token xoxb-1234-5678-abcdef leaked", "token [redacted-slack-token] leaked"],
    ["key AKIAABCDEFGHIJKLMNOP used", "key [redacted-aws-key] used"],
    ["connect: connection refused to 10.0.0.5:5432", "connect: connection refused to 10.0.0.5:5432"],
    ["Set-Cookie: sid=abc123; Path=/; HttpOnly", "Set-Cookie: sid=[redacted]; Path=/; HttpOnly"],
    ["note: password=hunter2", "note: password=[redacted]"],
    ['{"auths":{"r.example.com":{"auth":"dXNlcjpwYXNz"}}}', '{"auths":{"r.example.com":{"auth":"[redacted]"}}}'],
    ["failed to read secret: permission denied", "failed to read secret: permission denied"],
    ["secretName: tls-cert", "secretName: tls-cert"],
  ];
  for (const [input, want] of cases) test(input, () => expect(redact(input).text).toBe(want));

  test("counts what it removed", () => expect(redact("password=a token=b").count).toBe(2));

  test("is idempotent: a redacted text is left as it is, and nothing more is counted", () => {
    for (const s of SECRET_SHAPES) {
      const once = redact(s.text).text;
      expect(redact(once)).toEqual({ text: once, count: 0 });
    }
  });
});

describe(`the corpus: ${SECRET_SHAPES.length} credential shapes, ${HARMLESS_SHAPES.length} look-alikes`, () => {
  test("holds at least 150 shapes from gitleaks, secretlint and mon's own forms", () => {
    expect(SECRET_SHAPES.length).toBeGreaterThanOrEqual(150);
    expect(new Set(SECRET_SHAPES.map((s) => s.source))).toEqual(
      new Set(["gitleaks", "secretlint", "generic", "extended"]),
    );
    // Issue 29: at least 50 shapes of the classes an independent corpus found open.
    expect(SECRET_SHAPES.filter((s) => s.source === "extended").length).toBeGreaterThanOrEqual(50);
    expect(new Set(SECRET_SHAPES.map((s) => s.name)).size).toBe(SECRET_SHAPES.length);
  });

  test("no shape leaks 8 characters of its secret, and the text around it stays", () => {
    const leaks = SECRET_SHAPES.flatMap((s) => {
      const { text, count } = redact(`error: upstream call failed: ${s.text} (retrying)`);
      const leak = leakOf(text, s.secret);
      return leak || count === 0 || !text.startsWith("error: upstream call failed: ") || !text.endsWith("(retrying)")
        ? [`${s.name}: ${leak ?? "no marker"} in ${text.slice(0, 200)}`]
        : [];
    });
    expect(leaks).toEqual([]);
  });

  test("a vendor's dotted prefix with qualifiers after it (an environment, a region, a config) still hides the whole secret (issue 41)", () => {
    const dottedShapes = SECRET_SHAPES.filter((s) => s.text.endsWith(s.secret)).flatMap((s) => {
      const prefix = s.text.slice(0, s.text.length - s.secret.length);
      return prefix.endsWith(".") ? [{ ...s, prefix }] : [];
    });
    expect(dottedShapes.length).toBeGreaterThanOrEqual(8);
    fc.assert(
      fc.property(
        fc.constantFrom(...dottedShapes),
        fc.array(fc.stringMatching(/^[A-Za-z0-9_-]{1,16}$/), { minLength: 1, maxLength: 3 }),
        (s, qualifiers) => {
          const text = `export TOKEN ${s.prefix}${qualifiers.join(".")}.${s.secret} (retrying)`;
          const redacted = redact(text).text;
          expect(leakOf(redacted, s.secret)).toBeUndefined();
          expect(redacted.endsWith(" (retrying)")).toBe(true);
        },
      ),
      { seed: 41, numRuns: 500 },
    );
  });

  test("every look-alike stays as it is", () => {
    const changed = HARMLESS_SHAPES.flatMap((h) =>
      redact(h.text).count > 0 ? [`${h.name}: ${redact(h.text).text}`] : [],
    );
    expect(changed).toEqual([]);
  });
});

describe("redaction before truncation (evidence is cut at 500 characters)", () => {
  test("a private key longer than the cut is one marker, END line or not, and nothing of its body goes out", () => {
    const pem = SECRET_SHAPES.find((s) => s.name === "PEM RSA PRIVATE KEY (multi-line)")!;
    const [e] = evidence([["last output", `loading key\n${pem.text}\nstarting`]]);
    expect(e!.value).toBe("loading key\n[redacted-private-key]\nstarting");
  });

  test("a credential that starts anywhere around the cut never leaves its first characters", () => {
    const tokens = SECRET_SHAPES.filter((s) => s.source === "gitleaks").slice(0, 30);
    const leaks: string[] = [];
    for (const [i, s] of tokens.entries()) {
      // The token starts between 20 characters before and 7 after the cut.
      const filler = "x".repeat(480 + i - 1);
      const [e] = evidence([["last output", `${filler} ${s.text} tail`]]);
      expect(e!.value.length).toBeLessThanOrEqual(500);
      const leak = leakOf(e!.value, s.secret.slice(0, 12));
      if (leak || /\[redac$|\[redacted-[a-z-]*$/.test(e!.value.slice(0, -1)))
        leaks.push(`${s.name} at ${filler.length}: ${e!.value.slice(-40)}`);
    }
    expect(leaks).toEqual([]);
  });

  test("cut drops a run the cut falls in, back to the last boundary", () => {
    expect(cut("abc def", 10)).toBe("abc def");
    expect(cut("see token ghp_abcdefgh", 15)).toBe("see token…");
    expect(cut('{"msg":"x","token":"[redacted]"}', 24)).toBe('{"msg":"x","token":"…');
  });
});
