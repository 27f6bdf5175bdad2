import { isSensitiveKey, SENSITIVE_WORDS } from "./keys.ts";
import { VENDOR_TOKENS } from "./vendor.ts";

/** A text with credentials removed, and how many values were removed (spec 6.8, `mon_redacted_values_total`). */
export interface Redacted {
  readonly text: string;
  readonly count: number;
}

/**
 * Removes credentials from text a pod or the cluster wrote (spec 6.8; docs/redaction.md lists the rules):
 * private-key blocks (multi-line or one JSON-escaped line, with or without their END line), vendor tokens
 * by shape (vendor.ts), Authorization / Cookie headers, credentials in URLs (password, a token as the user,
 * sensitive query parameters), values of sensitive-looking keys in `k=v`, `k: v`, JSON and CLI-flag forms,
 * `.netrc` lines, and long high-entropy runs next to a sensitive word. Private addresses, image digests, UIDs
 * and commit ids stay. Pure and synchronous; linear in the text's length. Idempotent: markers are never
 * redacted again.
 */
export function redact(input: string): Redacted {
  // Most texts a pass sees are short values with nothing to look at ("4", "n1", "1 (Error)"), and the same
  // texts come back every pass: a gate and a bounded memo keep redaction off the pass's cost.
  if (!MAY_HOLD_CREDENTIAL.test(input)) return { text: input, count: 0 };
  const known = memo.get(input);
  if (known) return known;
  const result = redactNow(input);
  memoChars += input.length;
  if (memoChars > MEMO_MAX_CHARS) {
    memo.clear();
    memoChars = input.length;
  }
  memo.set(input, result);
  return result;
}

/**
 * What every rule needs at least one of: a separator (`=`, `:`, `@`), a PEM line, a CLI flag, a word some
 * rule keys on, or a run of 16 token characters (every vendor token has one).
 */
const MAY_HOLD_CREDENTIAL = /[=:@]|-----|--|\s-[pa]|bearer|password|account|PuTTY|[A-Za-z0-9_\-+/.$]{16,}/i;
/** Texts redacted recently, with their results; cleared when they hold more than MEMO_MAX_CHARS. */
const memo = new Map<string, Redacted>();
let memoChars = 0;
const MEMO_MAX_CHARS = 4 * 1024 * 1024;

function redactNow(input: string): Redacted {
  let count = 0;
  let text = input;
  const sub = (pattern: RegExp, replace: (match: string, ...groups: string[]) => string | undefined) => {
    text = text.replace(pattern, (match: string, ...groups: string[]) => {
      const out = replace(match, ...groups);
      if (out === undefined || out === match) return match;
      count++;
      return out;
    });
  };
  // Private keys first: their body would otherwise be cut into pieces by the token rules.
  sub(PEM_BLOCK, () => "[redacted-private-key]");
  sub(PEM_OPEN, () => "[redacted-private-key]");
  for (const [name, pattern] of VENDOR_TOKENS) sub(pattern, () => `[redacted-${name}]`);
  // Tokens standing in a URL path of a bot or webhook API (`/bot<token>/`, `/hooks/<token>`): the path stays.
  for (const pattern of URL_PATH_TOKENS) sub(pattern, (_m, head) => `${head}[redacted]`);
  sub(PREFIXED_TOKEN, (_m, prefix, body) => (isRandomBody(prefix!, body!) ? "[redacted-token]" : undefined));
  sub(AUTHORIZATION, (_m, head) => `${head}[redacted]`);
  sub(COOKIE_HEADER, (_m, head, value) => `${head}${redactCookies(value!)}`);
  sub(URL_USERINFO, (_m, head, info) => redactUserInfo(head!, info!));
  sub(BEARER, (_m, head) => `${head}[redacted]`);
  sub(NETRC, (_m, head) => `${head}[redacted]`);
  sub(CLI_FLAG, (_m, head, flag, value) =>
    isSensitiveKey(flag!) && !isMarker(value!) ? `${head}${quoted(value!, "[redacted]")}` : undefined,
  );
  sub(SHORT_PASSWORD_FLAG, (_m, head) => `${head}[redacted]`);
  const pairs = redactPairs(text);
  text = pairs.text;
  count += pairs.count;
  text = text.replace(TOKEN_RUN, (run: string, offset: number, whole: string) => {
    if (!highEntropy(run) || !afterSensitiveWord(whole.slice(Math.max(0, offset - 48), offset))) return run;
    count++;
    return "[redacted]";
  });
  return { text, count };
}

// --- internal ---

const PEM_LABEL = "-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----";
/** A whole block: up to its END line. */
const PEM_BLOCK = new RegExp(`${PEM_LABEL}[\\s\\S]*?-----END \\1PRIVATE KEY\\2-----`, "g");
/** A block whose END line is missing (cut by the kubelet's 4 KiB termination message or a log limit): everything after. */
const PEM_OPEN = new RegExp(
  `${PEM_LABEL}(?:[A-Za-z0-9+/=\\s]|\\\\[nr]|(?:Proc-Type|DEK-Info|Comment): [^\\n\\\\]*)*`,
  "g",
);

const SCHEME = "(?:bearer|basic|token|digest|ssws|negotiate|aws4-hmac-sha256|apikey|key)";
/** The scheme is optional, so the value must not be a scheme before a marker (`Bearer [redacted]`, done). */
const AUTHORIZATION = new RegExp(
  `\\b((?:proxy-)?authorization["']?\\s*[:=]\\s*["']?(?:${SCHEME}\\s+)?)(?!\\[redacted)(?!${SCHEME}\\s+\\[redacted)[^\\s"',;]+(?:[,\\s]+(?:SignedHeaders|Signature)=[^\\s"',;]+)*`,
  "gi",
);
const COOKIE_HEADER = /\b((?:set-)?cookie["']?\s*:\s*)([^\r\n"]+)/gi;
/** `scheme://userinfo@`: a password, a user standing alone (a token as often as a name), or `user:` with none. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/@]+)@/gi;
/**
 * A path segment of a bot or webhook API that is its credential: Telegram's `/bot<id>:<token>`, the incoming
 * webhooks of Mattermost, Rocket.Chat and others (`/hooks/<id>[/<token>]`), Feishu and Lark bots, IFTTT
 * (`/with/key/<key>`), Zapier, Grafana OnCall, PagerTree, Squadcast, Spike, Zenduty and FireHydrant, and any
 * `/webhook(s)/`, `/token(s)/` or `/key(s)/` segment of 20 or more token characters. Group 1 is what stays.
 */
const URL_PATH_TOKENS: readonly RegExp[] = [
  /(\bbot)(?!\[redacted)\d{5,12}:[A-Za-z0-9_-]{20,}/g,
  /(\/hooks?\/)(?!\[redacted)[A-Za-z0-9_-]{16,}(?:\/[A-Za-z0-9_-]{16,})?/gi,
  /(\/open-apis\/bot\/v2\/hook\/)(?!\[redacted)[A-Za-z0-9-]{20,}/g,
  /(\/with\/key\/)(?!\[redacted)[A-Za-z0-9_-]{10,}/g,
  /(hooks\.zapier\.com\/hooks\/catch\/\d+\/)(?!\[redacted)[A-Za-z0-9]{4,}/g,
  /(\/integrations\/v1\/[a-z_]+\/)(?!\[redacted)[A-Za-z0-9]{16,}/g,
  /(\/integration\/)(?!\[redacted)int_[A-Za-z0-9]{6,}/g,
  /(\/incidents\/api\/)(?!\[redacted)[A-Za-z0-9]{16,}/g,
  /(hooks\.spike\.sh\/)(?!\[redacted)[A-Za-z0-9-]{16,}/g,
  /(\/api\/integration\/[a-z]+\/)(?!\[redacted)[A-Za-z0-9-]{16,}/g,
  /(\/alerting\/webhooks\/)(?!\[redacted)[A-Za-z0-9-]{16,}/g,
  /(\/(?:webhooks?|tokens?|keys?|secrets?)\/)(?!\[redacted)(?=[A-Za-z0-9_-]{20,})(?=[^/\s]*\d)(?=[^/\s]*[A-Za-z])[A-Za-z0-9_-]+/gi,
  // A `key` query parameter is an API key in a URL (WeCom bots, Google Chat and Maps).
  /([?&]key=)(?!\[redacted)[^&\s"'#]{8,}/gi,
];
/**
 * A credential of a vendor mon has no rule for, in the format most issue now ("identifiable secrets"): a short
 * lowercase prefix and `_` or `-`, then 24 or more random characters mixing upper case, lower case and digits.
 */
const PREFIXED_TOKEN =
  /(?<![A-Za-z0-9_.-])([a-z][a-z0-9]{1,9}(?:[_-][a-z0-9]{1,8})?[_-])([A-Za-z0-9]{24,})(?![A-Za-z0-9])/g;
/** Prefixes of random identifiers that are not credentials (request, trace and payment object ids). */
const ID_PREFIXES =
  /^(?:req|request|trace|span|evt|event|cus|pi|pm|ch|in|sub|prod|price|txn|id|uid|msg|run|job|build|acct|src|seti|cs|ii|il|po|tr|re|pr|py|txi|ba|card|tok)[_-]$/;
const BEARER = /\b(bearer\s+)(?!\[redacted)[A-Za-z0-9._~+/=-]{8,}/gi;
/** `.netrc`: `machine host login user password value` (and `account`). */
const NETRC = /\b(machine\s+\S+(?:\s+login\s+\S+)?\s+(?:password|account)\s+)(?!\[redacted)\S+/gi;
/** `--password value`, `--password=value`, `-password value`. */
const CLI_FLAG = /((?:^|\s)--?([A-Za-z][A-Za-z0-9_-]*)(?:=|\s+))("[^"]*"|'[^']*'|(?!-)[^\s"']+)/g;
/** mysql's and redis-cli's `-p'secret'`, `-psecret`, `-a secret` (the value glued to -p, or after -a in redis-cli). */
const SHORT_PASSWORD_FLAG =
  /((?:^|\s)(?:mysql|mysqldump|mariadb|redis-cli)\b[^\n]*?\s-(?:p|a\s+))(?!\[redacted)("[^"]+"|'[^']+'|[^\s'"]+)/g;
/**
 * `key=value`, `key: value`, `"key": "value"`, and the JSON-escaped `\"key\":\"value\"`: groups are the text
 * before, the opening quote, the key, the closing quote, the separator, the spaces, the value.
 */
const PAIR =
  /(^|[^A-Za-z0-9_./\\-])(\\?["']?)([A-Za-z_][A-Za-z0-9_.-]*)(\\?["']?)\s*([:=])(\s*)(\\"(?:[^"\\]|\\[^"])*\\"|"(?:[^"\\]|\\.)*"|'[^'\n]*'|[^\s"',;&(){}[\]\\]+)/g;
const PLACEHOLDER =
  /^(?:\*+|x{3,}|<[^>]*>|\(.*\)|\$\{[^}]*\}|\$[A-Z_]+|null|none|nil|true|false|undefined|redacted|\[redacted[^\]]*\])$/i;
/**
 * A name that ends in a credential word whatever comes before it, in any case and without a separator
 * (`MYSQL_ROOT_PASSWORD`, `DBPASSWD`, `appSecret`, `GITHUBTOKEN`, `stripeKey`, `SIGNINGKEY`): a config dump
 * or an environment listing names its credentials so.
 */
const CREDENTIAL_SUFFIX = /[A-Za-z0-9](?:password|passwd|secret|token|key)$/i;
/** A run of token characters long enough to be a credential (see highEntropy). */
const TOKEN_RUN = /(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_=-]{24,}/g;

/** Whether one of the last three words of `before` is a sensitive word (or `key`): `api key 4f9a…`, `token is …`. */
function afterSensitiveWord(before: string): boolean {
  const words = before.match(/[A-Za-z]+/g) ?? [];
  return words.slice(-3).some((w) => {
    const lower = w.toLowerCase();
    return lower === "key" || SENSITIVE_WORDS.has(lower);
  });
}

/**
 * The values of sensitive keys in `key=value`, `key: value`, JSON and JSON-escaped forms. A pair that is not
 * sensitive gives back everything after its separator, so `note: password=x` still finds `password`.
 */
function redactPairs(input: string): Redacted {
  let out = "";
  let at = 0;
  let count = 0;
  PAIR.lastIndex = 0;
  for (let m = PAIR.exec(input); m !== null; m = PAIR.exec(input)) {
    const [whole, before, open, key, _close, sep, gap, value] = m as unknown as string[];
    const valueAt = m.index + whole!.length - value!.length;
    // `key: word` in prose ("failed to read secret: permission denied", `volume "api-token" : secret …`) is kept;
    // a YAML field (at a line's start, after `{ , ; |`) is not, and JSON quotes its strings.
    const prose =
      sep === ":" &&
      gap !== "" &&
      /^[a-z]+$/.test(value!) &&
      (open !== "" || !/(^|[\n{,;|\t])\s*$/.test(input.slice(Math.max(0, m.index - 2), m.index) + before));
    const glued = input.startsWith("[redacted", valueAt + value!.length); // `k: a=[redacted]`, already done
    const sensitive = isSensitiveKey(key!) || CREDENTIAL_SUFFIX.test(key!);
    if (!sensitive || isMarker(value!) || glued || prose || PLACEHOLDER.test(unquote(value!))) {
      PAIR.lastIndex = valueAt - 1;
      continue;
    }
    out += input.slice(at, valueAt) + quoted(value!, "[redacted]");
    at = valueAt + value!.length;
    count++;
  }
  return { text: out + input.slice(at), count };
}

function redactCookies(value: string): string {
  // `Cookie: a=1; b=2` → every value; `Set-Cookie: sid=…; Path=/; HttpOnly` → the first pair only.
  const attributes = /^(?:path|domain|expires|max-age|samesite|secure|httponly|priority|partitioned)$/i;
  return value.replace(/(^|;\s*)([^=;\s]+)=([^;\s]*)/g, (m, sep: string, name: string, v: string) =>
    attributes.test(name) || v.startsWith("[redacted") ? m : `${sep}${name}=[redacted]`,
  );
}

function isMarker(value: string): boolean {
  return value.includes("[redacted");
}

function unquote(value: string): string {
  return value.replace(/^\\?["']|\\?["']$/g, "");
}

/** `value`'s quotes kept around `replacement`. */
function quoted(value: string, replacement: string): string {
  const open = /^(\\"|"|')/.exec(value)?.[1];
  return open ? `${open}${replacement}${open}` : replacement;
}

/**
 * The user-info of a URL: its password goes (`user:[redacted]@`), and so does a user standing alone — a token
 * in that place (`https://<token>@host`, `https://x-access-token@…`) cannot be told from a name. Only `git`,
 * the SSH convention, stays. Undefined: nothing to change.
 */
function redactUserInfo(head: string, info: string): string | undefined {
  if (isMarker(info)) return undefined;
  const colon = info.indexOf(":");
  if (colon < 0) return info === "git" ? undefined : `${head}[redacted]@`;
  const user = info.slice(0, colon);
  const password = info.slice(colon + 1);
  if (password === "") return user === "" ? undefined : `${head}[redacted]:@`;
  return `${head}${user}:[redacted]@`;
}

/** The body of a prefixed token is random: upper case, lower case and digits, high entropy, not an id's prefix. */
function isRandomBody(prefix: string, body: string): boolean {
  return !ID_PREFIXES.test(prefix) && /[A-Z]/.test(body) && /[a-z]/.test(body) && /\d/.test(body) && highEntropy(body);
}

/**
 * A run that is a random credential rather than a word or an identifier: at least 24 characters, both
 * letters and digits, and Shannon entropy ≥ 3.5 bits per character (hex ids of 24–31 characters stay).
 */
export function highEntropy(run: string): boolean {
  if (run.length < 24 || !/\d/.test(run) || !/[A-Za-z]/.test(run)) return false;
  const counts = new Map<string, number>();
  for (const c of run) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / run.length) * Math.log2(n / run.length);
  return bits >= 3.5;
}
