import { describe, expect, test } from "bun:test";
import { basic, bearer } from "./auth.ts";

describe("Authorization headers, built once (issue 31.6)", () => {
  test("Basic is base64 of user:password in UTF-8 (RFC 7617): a password outside Latin-1 no longer throws", () => {
    expect(basic("mon", "s3cret")).toBe(`Basic ${Buffer.from("mon:s3cret").toString("base64")}`);
    expect(basic("", "pat")).toBe(`Basic ${Buffer.from(":pat").toString("base64")}`);
    expect(basic("ops", "пароль🔑")).toBe(`Basic ${Buffer.from("ops:пароль🔑", "utf8").toString("base64")}`);
    expect(bearer("t0k")).toBe("Bearer t0k");
  });
});
