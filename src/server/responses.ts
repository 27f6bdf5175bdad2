/** A JSON response (one line and a newline), as every endpoint of the health server answers JSON. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(`${JSON.stringify(body)}\n`, {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** A plain-text response. */
export function text(status: number, body: string): Response {
  return new Response(body, { status, headers: { "content-type": "text/plain; charset=utf-8" } });
}
