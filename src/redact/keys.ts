/**
 * Whether a field name names a credential (spec 6.8): split into words (`db_password`, `clientSecret`,
 * `X-Auth-Token`, `tls.key`), it holds a sensitive word (`password`, `secret`, `token`, `auth`, `credential`,
 * `session`, `cookie`, `private` …) or a sensitive pair (`api key`, `access key`, `key data` …), and does
 * not end in a word that makes it a reference to one (`secretName`, `tokenPath`, `passwordFile`, `token_type`).
 */
export function isSensitiveKey(key: string): boolean {
  const words = wordsOf(key);
  if (words.length === 0) return false;
  const last = words[words.length - 1]!;
  if (REFERENCE_WORDS.has(last) && words.length > 1) return false;
  if (words.some((w) => SENSITIVE_WORDS.has(w))) return true;
  if (SENSITIVE_WHOLE.has(words.join(""))) return true;
  for (let i = 0; i + 1 < words.length; i++) if (SENSITIVE_PAIRS.has(`${words[i]} ${words[i + 1]}`)) return true;
  return false;
}

/** The lowercase words of a field name: split at `_ - . /` and at lower-to-upper case changes. */
export function wordsOf(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

/** Words that name a credential on their own. */
export const SENSITIVE_WORDS: ReadonlySet<string> = new Set([
  "password",
  "passwd",
  "pwd",
  "pass",
  "passphrase",
  "passcode",
  "secret",
  "secrets",
  "token",
  "tokens",
  "apikey",
  "auth",
  "credential",
  "credentials",
  "creds",
  "session",
  "sessionid",
  "sessid",
  "cookie",
  "private",
  "privatekey",
  "accountkey",
  "sig",
  "signature",
  "jwt",
  "bearer",
  "otp",
  "sas",
  "dsn",
]);

/** Names that are sensitive only as a whole once their separators go (`passWord` → `password`). */
const SENSITIVE_WHOLE: ReadonlySet<string> = new Set(["password", "apikey", "accesskey", "secretkey", "privatekey"]);

/** Two words in a row that name a credential. */
const SENSITIVE_PAIRS: ReadonlySet<string> = new Set([
  "api key",
  "access key",
  "secret key",
  "client key",
  "account key",
  "master key",
  "encryption key",
  "signing key",
  "shared key",
  "app key",
  "application key",
  "license key",
  "key data",
  "tls key",
  "ssh key",
  "ssh privatekey",
  "private key",
  "connection string",
  "sas url",
  "amz credential",
  "amz signature",
  "amz security",
]);

/** Last words that make a field name a reference to a credential, not the credential itself. */
const REFERENCE_WORDS: ReadonlySet<string> = new Set([
  "name",
  "names",
  "ref",
  "refs",
  "path",
  "paths",
  "file",
  "files",
  "dir",
  "type",
  "types",
  "kind",
  "count",
  "length",
  "len",
  "size",
  "ttl",
  "expiry",
  "expires",
  "expiration",
  "mount",
  "volume",
  "namespace",
  "provider",
  "version",
  "enabled",
  "required",
  "policy",
  "format",
  "mode",
  "field",
  "url",
  "endpoint",
  "method",
  "hint",
  "timeout",
  "at",
]);
