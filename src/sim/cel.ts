/**
 * The subset of CEL (the Common Expression Language of `x-kubernetes-validations`) the simulator evaluates:
 * `self` and its fields, number, string and boolean literals, `size(x)`, comparisons (`== != < <= > >=`), `!`,
 * `&&`, `||` and parentheses. A rule outside the subset is refused when the CustomResourceDefinition is
 * written, as kube-apiserver refuses a rule that does not compile, so a test never passes on a rule the
 * simulator silently skipped (docs/simulator.md).
 */

/** A compiled rule: evaluates against `self`, true when the value is valid. */
export type CelRule = (self: unknown) => boolean;

/** Compiles `rule`; throws Error naming the first token it cannot read. */
export function compileCel(rule: string): CelRule {
  const tokens = tokenize(rule);
  let at = 0;
  const peek = () => tokens[at];
  const take = (expected?: string) => {
    const token = tokens[at++];
    if (token === undefined || (expected !== undefined && token !== expected))
      throw new Error(`unsupported CEL rule ${JSON.stringify(rule)}: expected ${expected ?? "a value"}`);
    return token;
  };
  type Node = (self: unknown) => unknown;
  const or = (): Node => {
    let left = and();
    while (peek() === "||") {
      take();
      const l = left;
      const r = and();
      left = (s) => Boolean(l(s)) || Boolean(r(s));
    }
    return left;
  };
  const and = (): Node => {
    let left = comparison();
    while (peek() === "&&") {
      take();
      const l = left;
      const r = comparison();
      left = (s) => Boolean(l(s)) && Boolean(r(s));
    }
    return left;
  };
  const comparison = (): Node => {
    const left = unary();
    const op = peek();
    if (op === undefined || !COMPARE[op]) return left;
    take();
    const right = unary();
    const compare = COMPARE[op]!;
    return (s) => compare(left(s), right(s));
  };
  const unary = (): Node => {
    if (peek() === "!") {
      take();
      const inner = unary();
      return (s) => !inner(s);
    }
    return primary();
  };
  const primary = (): Node => {
    const token = take();
    if (token === "(") {
      const inner = or();
      take(")");
      return inner;
    }
    if (token === "size") {
      take("(");
      const inner = or();
      take(")");
      return (s) => {
        const value = inner(s);
        if (typeof value === "string" || Array.isArray(value)) return value.length;
        return value && typeof value === "object" ? Object.keys(value).length : 0;
      };
    }
    if (token === "self") {
      const path: string[] = [];
      while (peek() === ".") {
        take();
        path.push(take());
      }
      return (s) => path.reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], s);
    }
    if (token === "true" || token === "false") return () => token === "true";
    if (/^-?\d+(\.\d+)?$/.test(token)) return () => Number(token);
    if (/^["'].*["']$/.test(token)) return () => token.slice(1, -1);
    throw new Error(`unsupported CEL rule ${JSON.stringify(rule)}: ${JSON.stringify(token)}`);
  };
  const root = or();
  if (at !== tokens.length) throw new Error(`unsupported CEL rule ${JSON.stringify(rule)}: ${tokens[at]}`);
  return (self) => Boolean(root(self));
}

// --- internal ---

const COMPARE: Record<string, (a: unknown, b: unknown) => boolean> = {
  "==": (a, b) => a === b,
  "!=": (a, b) => a !== b,
  "<": (a, b) => (a as number) < (b as number),
  "<=": (a, b) => (a as number) <= (b as number),
  ">": (a, b) => (a as number) > (b as number),
  ">=": (a, b) => (a as number) >= (b as number),
};

function tokenize(rule: string): string[] {
  const out: string[] = [];
  const pattern = /\s*(\|\||&&|==|!=|<=|>=|[<>!().]|-?\d+(?:\.\d+)?|"[^"]*"|'[^']*'|[A-Za-z_][A-Za-z0-9_]*)/y;
  let at = 0;
  while (at < rule.length) {
    if (/^\s*$/.test(rule.slice(at))) break;
    pattern.lastIndex = at;
    const match = pattern.exec(rule);
    if (!match) throw new Error(`unsupported CEL rule ${JSON.stringify(rule)} at ${JSON.stringify(rule.slice(at))}`);
    out.push(match[1]!);
    at = pattern.lastIndex;
  }
  return out;
}
