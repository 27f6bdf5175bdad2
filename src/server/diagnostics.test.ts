import { describe, expect, test } from "bun:test";
import { H3 } from "h3";
import { addDiagnostics, type DiagnosticsSource, SESSION_SECONDS, TOKEN_COOKIE } from "./diagnostics.ts";

const TOKEN = "a-diagnostics-token-of-32-chars!";

function app(leading = true, token = TOKEN, now: () => number = Date.now): H3 {
  const source = {
    incidents: () => [{ id: "Node//worker-2" }],
    incident: (id: string) => (id === "Node//worker-2" ? { id } : undefined),
    incidentsPage: (query: Record<string, string>) => `<!doctype html><p>page ${JSON.stringify(query)}</p>`,
    incidentPage: (id: string) => (id === "Node//worker-2" ? "<!doctype html><p>one</p>" : undefined),
  } as unknown as DiagnosticsSource;
  const h3 = new H3();
  addDiagnostics(h3, token, () => (leading ? source : undefined), now);
  return h3;
}

const get = (h3: H3, path: string, headers: Record<string, string> = {}) =>
  Promise.resolve(h3.fetch(new Request(`http://127.0.0.1${path}`, { headers })));
const HTML = { accept: "text/html,application/xhtml+xml" };

describe("the incidents page behind the diagnostics token (issue 44)", () => {
  test("a browser without the token gets the login form, never the page", async () => {
    const r = await get(app(), "/incidents", HTML);
    expect(r.status).toBe(401);
    const body = await r.text();
    expect(body).toContain('name="token"');
    expect(body).not.toContain("page");
  });

  test("the token given on the form sets an HttpOnly cookie and leaves the address; the cookie opens the page", async () => {
    const h3 = app();
    const r = await get(h3, `/incidents?token=${encodeURIComponent(TOKEN)}&namespace=shop`, HTML);
    expect(r.status).toBe(303);
    expect(r.headers.get("location")).toBe("/incidents?namespace=shop");
    const cookie = r.headers.get("set-cookie") ?? "";
    expect(cookie).toContain(`${TOKEN_COOKIE}=`);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    const page = await get(h3, "/incidents?namespace=shop", { ...HTML, cookie: cookie.split(";")[0]! });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(await page.text()).toContain('page {"namespace":"shop"}');
    const one = await get(h3, "/incidents/Node//worker-2", { ...HTML, cookie: cookie.split(";")[0]! });
    expect(await one.text()).toContain("one");
  });

  test("the session cookie is never the token: signed, it expires after 12 hours and dies with the token (issue 54)", async () => {
    let at = Date.parse("2026-12-02T12:00:00Z");
    const h3 = app(true, TOKEN, () => at);
    const r = await get(h3, `/incidents?token=${encodeURIComponent(TOKEN)}`, HTML);
    const set = r.headers.get("set-cookie") ?? "";
    const pair = set.split(";")[0]!;
    expect(pair).not.toContain(encodeURIComponent(TOKEN));
    expect(pair).not.toContain(TOKEN);
    expect(set).toContain(`Max-Age=${SESSION_SECONDS}`);
    // Two logins are two sessions.
    const again = (await get(h3, `/incidents?token=${encodeURIComponent(TOKEN)}`, HTML)).headers.get("set-cookie");
    expect(again?.split(";")[0]).not.toBe(pair);
    expect((await get(h3, "/incidents", { ...HTML, cookie: pair })).status).toBe(200);
    // Another replica with the same token takes it; one whose token changed does not.
    expect(
      (
        await get(
          app(true, TOKEN, () => at),
          "/incidents",
          { ...HTML, cookie: pair },
        )
      ).status,
    ).toBe(200);
    const rotated = app(true, "another-diagnostics-token-32-ch!", () => at);
    expect((await get(rotated, "/incidents", { ...HTML, cookie: pair })).status).toBe(401);
    // A forged expiry breaks the signature; the real one ends the session.
    const [expiry, nonce, mac] = pair.split("=")[1]!.split(".");
    const forged = `${TOKEN_COOKIE}=${Number(expiry) + 86_400}.${nonce}.${mac}`;
    expect((await get(h3, "/incidents", { ...HTML, cookie: forged })).status).toBe(401);
    at += SESSION_SECONDS * 1000;
    expect((await get(h3, "/incidents", { ...HTML, cookie: pair })).status).toBe(401);
  });

  test("a wrong token on the form or in the cookie is refused", async () => {
    const h3 = app();
    const wrong = await get(h3, "/incidents?token=not-the-token-at-all-really", HTML);
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain("not the diagnostics token");
    expect((await get(h3, "/incidents", { ...HTML, cookie: `${TOKEN_COOKIE}=guess` })).status).toBe(401);
    // The token itself is no session.
    expect(
      (await get(h3, "/incidents", { ...HTML, cookie: `${TOKEN_COOKIE}=${encodeURIComponent(TOKEN)}` })).status,
    ).toBe(401);
  });

  test("API clients still get JSON with the bearer token, and a standby says so", async () => {
    const r = await get(app(), "/incidents", { authorization: `Bearer ${TOKEN}` });
    expect(r.headers.get("content-type")).toContain("application/json");
    expect(await r.json()).toEqual([{ id: "Node//worker-2" }]);
    const standby = await get(app(false), "/incidents", { ...HTML, authorization: `Bearer ${TOKEN}` });
    expect(standby.status).toBe(503);
  });
});
