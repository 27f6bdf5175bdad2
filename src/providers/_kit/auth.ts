/**
 * The Authorization header values providers send (issue 31.6: built once, not in every provider). Credentials
 * are UTF-8 before base64, so a password outside Latin-1 is sent as RFC 7617 says instead of throwing.
 */

/** `Bearer <token>` (RFC 6750). */
export function bearer(token: string): string {
  return `Bearer ${token}`;
}

/** `Basic base64(user:password)` (RFC 7617), UTF-8. */
export function basic(user: string, password: string): string {
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return `Basic ${btoa(binary)}`;
}
