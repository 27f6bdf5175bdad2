/** `v` with every object's keys sorted, deeply: two values compare equal whatever order their keys were set in. */
export function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  return v;
}

/** Where two JSON-shaped values differ: `path: a … b …` per differing leaf (`a`, `b` name the two sides). */
export function pathsApart(a: unknown, b: unknown, names: readonly [string, string] = ["a", "b"], path = ""): string[] {
  if (JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b))) return [];
  if (a && b && typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b))
    return [...new Set([...Object.keys(a), ...Object.keys(b)])].flatMap((k) =>
      pathsApart((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], names, `${path}.${k}`),
    );
  return [
    `${path || "."}: ${names[0]} ${String(JSON.stringify(a)).slice(0, 80)} ${names[1]} ${String(JSON.stringify(b)).slice(0, 80)}`,
  ];
}
