import { describe, expect, test } from "bun:test";
import { H3 } from "h3";
import { addDiagnostics, type DiagnosticsSource, TOKEN_COOKIE } from "./diagnostics.ts";

const TOKEN = "a-diagnostics-token-of-32-chars!";

function app(leading = true): H3 {
  const source = {
    incidents: () => [{ id: "Node//worker-2" }],
    incident: (id: string) => (id === "Node//worker-2" ? { id } : undefined),
    incidentsPage: (query: Record<string, string>) => `<!doctype html><p>page ${JSON.stringify(query)}</p>`,
    incidentPage: (id: string) => (id === "Node//worker-2" ? "<!doctype html><p>one</p>" : undefined),
  } as unknown as DiagnosticsSource;
  const h3 = new H3();
  addDiagnostics(h3, TOKEN, () => (leading ? source : undefined));
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

  test("a wrong token on the form or in the cookie is refused", async () => {
    const h3 = app();
    const wrong = await get(h3, "/incidents?token=not-the-token-at-all-really", HTML);
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain("not the diagnostics token");
    expect((await get(h3, "/incidents", { ...HTML, cookie: `${TOKEN_COOKIE}=guess` })).status).toBe(401);
  });

  test("API clients still get JSON with the bearer token, and a standby says so", async () => {
    const r = await get(app(), "/incidents", { authorization: `Bearer ${TOKEN}` });
    expect(r.headers.get("content-type")).toContain("application/json");
    expect(await r.json()).toEqual([{ id: "Node//worker-2" }]);
    const standby = await get(app(false), "/incidents", { ...HTML, authorization: `Bearer ${TOKEN}` });
    expect(standby.status).toBe(503);
  });
});
