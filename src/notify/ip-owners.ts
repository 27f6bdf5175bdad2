const IPV4 = /\b((?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3})\b(?!\s*\()/g;

/**
 * Appends the owner of every IPv4 address whose owner is known (spec 6.8): `10.96.14.7` becomes
 * `10.96.14.7 (shop/orders-db)`. Addresses are never hidden; unknown ones stay as they are; an address
 * already followed by a parenthesis is left alone. Returns the text unchanged without an owner lookup.
 */
export function annotateIps(text: string, ownerOf: ((ip: string) => string | undefined) | undefined): string {
  if (!ownerOf) return text;
  return text.replace(IPV4, (ip: string) => {
    const owner = ownerOf(ip);
    return owner ? `${ip} (${owner})` : ip;
  });
}
