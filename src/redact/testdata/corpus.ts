import base from "./corpus-base.json" with { type: "json" };

/**
 * The redaction corpus (spec 6.8, docs/redaction.md): credential shapes a pod can print, each as `text` (the
 * credential in its usual surroundings) and `secret` (the part that must never leave the cluster), and
 * harmless look-alikes that must stay readable. Values are generated from a fixed seed, so the repository
 * holds no live-looking credential literal; shapes follow the gitleaks rule set's documented examples,
 * secretlint's test fixtures and the forms of issue 18.
 */
export interface SecretShape {
  readonly name: string;
  /** Where the shape comes from: `gitleaks`, `secretlint`, `generic` (mon's own forms). */
  /** `extended`: the classes of issue 29 (URL user-info, `*PASSWORD=`-style names, tokens in bot API paths, vendor families beyond the first rule set, prefixed random tokens). */
  readonly source: "gitleaks" | "secretlint" | "generic" | "extended";
  readonly text: string;
  readonly secret: string;
}

/** A look-alike that must pass untouched. */
export interface HarmlessShape {
  readonly name: string;
  readonly text: string;
}

let seed = 0x6d6f6e;
/** A deterministic pseudo-random string of `n` characters from `alphabet` (mulberry32). */
function rnd(n: number, alphabet = ALNUM): string {
  let out = "";
  for (let i = 0; i < n; i++) {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    out += alphabet[((t ^ (t >>> 14)) >>> 0) % alphabet.length];
  }
  return out;
}
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER_NUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const LOWER_NUM = "abcdefghijklmnopqrstuvwxyz0123456789";
const HEX = "0123456789abcdef";
const B64 = `${ALNUM}+/`;
const B64URL = `${ALNUM}_-`;

/** A shape: `secret` is what must vanish, `text` what the pod prints (the secret alone by default). */
function shape(name: string, source: SecretShape["source"], secret: string, text: string = secret): SecretShape {
  return { name, source, text, secret };
}

function pem(label: string, lines = 12): { block: string; body: string } {
  const body = Array.from({ length: lines }, () => rnd(64, B64)).join("\n");
  return { block: `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----`, body };
}

function vendor(): SecretShape[] {
  const v = (name: string, prefix: string, body: string, text?: (token: string) => string) =>
    shape(name, "gitleaks", body, text ? text(prefix + body) : `${prefix}${body}`);
  return [
    v("Stripe secret key", "sk_live_", rnd(24)),
    v("Stripe restricted key", "rk_live_", rnd(24)),
    v("Stripe test key", "sk_test_", rnd(24)),
    v("Stripe webhook secret", "whsec_", rnd(32)),
    v("Google OAuth client secret", "GOCSPX-", rnd(28, B64URL)),
    v("Google OAuth access token", "ya29.", rnd(60, B64URL)),
    v("Google OAuth refresh token", "1//0", rnd(40, B64URL)),
    v("Alibaba access key id", "LTAI", rnd(20)),
    v("DigitalOcean PAT", "dop_v1_", rnd(64, HEX)),
    v("DigitalOcean OAuth token", "doo_v1_", rnd(64, HEX)),
    v("GitLab deploy token", "gldt-", rnd(20, B64URL)),
    v("GitLab runner token", "glrt-", rnd(20, B64URL)),
    v("GitLab runner registration token", "GR1348941", rnd(20, B64URL)),
    v("GitLab pipeline trigger token", "glptt-", rnd(40, HEX)),
    v("PyPI token", "pypi-AgEIcHlwaS5vcmc", rnd(60, B64URL)),
    v("Hugging Face token", "hf_", rnd(34, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")),
    v("Hugging Face org token", "api_org_", rnd(34, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")),
    v("Terraform Cloud token", `${rnd(14, LOWER_NUM)}.atlasv1.`, rnd(67, LOWER_NUM)),
    v("Doppler personal token", "dp.pt.", rnd(43, LOWER_NUM)),
    v("Doppler service token", "dp.st.", rnd(43, LOWER_NUM)),
    // Issue 41: a service token names its environment between the prefix and the secret.
    v("Doppler service token with its environment", "dp.st.prd.", rnd(43, ALNUM)),
    v("Artifactory API key", "AKCp", rnd(69)),
    v("Artifactory reference token", "cmVmdGtu", rnd(56)),
    v("Postman API key", "PMAK-", `${rnd(24, HEX)}-${rnd(34, HEX)}`),
    v("Square access token", "sq0atp-", rnd(22, B64URL)),
    v("Square OAuth secret", "sq0csp-", rnd(43, B64URL)),
    v("Square production token", "EAAA", rnd(60, B64URL)),
    v("Braintree production token", "access_token$production$", `${rnd(16, LOWER_NUM)}$${rnd(32, HEX)}`),
    v("OpenAI project key", "sk-proj-", rnd(80, B64URL)),
    v("OpenAI service account key", "sk-svcacct-", rnd(60, B64URL)),
    v("OpenAI admin key", "sk-admin-", rnd(60, B64URL)),
    v("Anthropic admin key", "sk-ant-admin01-", rnd(90, B64URL)),
    v("Notion integration token", "ntn_", `${rnd(11, "0123456789")}${rnd(35)}`),
    v("Notion legacy token", "secret_", rnd(43)),
    v("New Relic user key", "NRAK-", rnd(27, UPPER_NUM)),
    v("New Relic insert key", "NRII-", rnd(32, B64URL.replace("-", ""))),
    v("Datadog application key", "DD_APP_KEY=", rnd(40, HEX)),
    v("Datadog API key in prose", "datadog api key ", rnd(32, HEX)),
    v("Atlassian API token", "ATATT3", rnd(186, B64URL)),
    v("Vault batch token", "hvb.", rnd(120, B64URL)),
    v("Vault recovery token", "hvr.", rnd(30, B64URL)),
    v("Vault legacy token", "VAULT_TOKEN=s.", rnd(24)),
    v("Okta API token", "Authorization: SSWS ", rnd(42, B64URL)),
    v("age secret key", "AGE-SECRET-KEY-1", rnd(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")),
    v("npm token in .npmrc", "//registry.npmjs.org/:_authToken=npm_", rnd(36)),
    v("RubyGems key", "rubygems_", rnd(48, HEX)),
    v("Mailgun key", "key-", rnd(32, HEX)),
    v("Mailchimp key", "", `${rnd(32, HEX)}-us14`),
    v("Twilio API key", "SK", rnd(32, HEX)),
    v("Telegram bot token", `${rnd(9, "123456789")}:AA`, rnd(33, B64URL.replace("-", ""))),
    v("Databricks token with a suffix", "dapi", `${rnd(32, HEX)}-2`),
    v("Dynatrace token", "dt0c01.", `${rnd(24, UPPER_NUM)}.${rnd(64, UPPER_NUM)}`),
    v("Pulumi token", "pul-", rnd(40, HEX)),
    v("Fly.io token", "fo1_", rnd(43, B64URL)),
    v("PlanetScale password", "pscale_pw_", rnd(43, B64URL)),
    v("Supabase token", "sbp_", rnd(40, HEX)),
    v("Sentry user token", "sntryu_", rnd(64, HEX)),
    v("Grafana Cloud token", "glc_", rnd(60, B64URL)),
    v("Airtable PAT", `pat${rnd(14)}.`, rnd(64, HEX)),
    v("Prefect key", "pnu_", rnd(36)),
    v("Shippo token", "shippo_live_", rnd(40, HEX)),
    v("Duffel token", "duffel_live_", rnd(43, B64URL)),
    v("EasyPost key", "EZAK", rnd(54)),
    v("Mapbox secret token", "sk.eyJ", `${rnd(60, B64URL)}.${rnd(22, B64URL)}`),
    v("Discord webhook", `https://discord.com/api/webhooks/${rnd(18, "0123456789")}/`, rnd(68, B64URL)),
    v(
      "Teams webhook",
      "https://contoso.webhook.office.com/webhookb2/",
      `${rnd(36, HEX)}@${rnd(36, HEX)}/IncomingWebhook/${rnd(32, HEX)}`,
    ),
    v("Slack app token", "xapp-1-A0123456789-1234567890123-", rnd(64, HEX)),
    v("Slack refresh token", "xoxe-1-", rnd(140, ALNUM)),
    v(
      "GitHub token in a clone URL",
      "https://",
      rnd(36),
      (t) => `git clone ${t.replace("https://", "https://ghp_")}@github.com/shop/api.git`,
    ),
    (() => {
      const key = `${rnd(86, B64)}==`;
      return shape(
        "Azure storage connection string",
        "gitleaks",
        key,
        `DefaultEndpointsProtocol=https;AccountName=shopassets;AccountKey=${key};EndpointSuffix=core.windows.net`,
      );
    })(),
    (() => {
      const key = `${rnd(86, B64)}==`;
      return shape(
        "Azure Cosmos DB connection string",
        "gitleaks",
        key,
        `AccountEndpoint=https://shop.documents.azure.com:443/;AccountKey=${key};`,
      );
    })(),
    (() => {
      const key = `${rnd(43, B64)}=`;
      return shape(
        "Azure Service Bus connection string",
        "gitleaks",
        key,
        `Endpoint=sb://shop.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${key}`,
      );
    })(),
    (() => {
      const sig = `${rnd(43, B64)}%3D`;
      return shape(
        "Azure SAS URL",
        "gitleaks",
        sig,
        `GET https://shopassets.blob.core.windows.net/backups/db.tar?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-01T00:00:00Z&sig=${sig} failed: 403`,
      );
    })(),
    (() => {
      const sig = rnd(64, HEX);
      return shape(
        "AWS presigned URL",
        "generic",
        sig,
        `https://shop.s3.amazonaws.com/a.tar?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA${rnd(16, UPPER_NUM)}%2F20261101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=${sig}`,
      );
    })(),
  ];
}

function privateKeys(): SecretShape[] {
  const out: SecretShape[] = [];
  for (const label of [
    "RSA PRIVATE KEY",
    "PRIVATE KEY",
    "EC PRIVATE KEY",
    "ENCRYPTED PRIVATE KEY",
    "OPENSSH PRIVATE KEY",
    "DSA PRIVATE KEY",
    "PGP PRIVATE KEY BLOCK",
  ]) {
    const { block, body } = pem(label);
    out.push(shape(`PEM ${label} (multi-line)`, "secretlint", body.split("\n")[5]!, block));
    const escaped = pem(label);
    out.push(
      shape(
        `PEM ${label} (one JSON-escaped line)`,
        "secretlint",
        escaped.body.split("\n")[6]!,
        `{"level":"error","msg":"bad key","key":"${escaped.block.replaceAll("\n", "\\n")}"}`,
      ),
    );
  }
  const encrypted = pem("RSA PRIVATE KEY");
  out.push(
    shape(
      "PEM encrypted RSA key with headers",
      "secretlint",
      encrypted.body.split("\n")[4]!,
      encrypted.block.replace(
        "-----\n",
        `-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,${rnd(32, HEX).toUpperCase()}\n\n`,
      ),
    ),
  );
  const cutKey = pem("RSA PRIVATE KEY", 20);
  out.push(
    shape(
      "PEM key without its END line (cut by the 4 KiB termination message)",
      "generic",
      cutKey.body.split("\n")[18]!,
      cutKey.block.slice(0, cutKey.block.indexOf("-----END")),
    ),
  );
  const kubeKey = rnd(120, B64);
  out.push(
    shape(
      "kubeconfig client-key-data",
      "generic",
      kubeKey,
      `users:\n- name: admin\n  user:\n    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t\n    client-key-data: ${kubeKey}`,
    ),
  );
  const tlsKey = `LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0t${rnd(100, B64)}`;
  out.push(shape("Secret tls.key (base64)", "generic", tlsKey.slice(40), `tls.key: ${tlsKey}`));
  const putty = rnd(64, B64);
  out.push(
    shape(
      "PuTTY private key",
      "gitleaks",
      putty,
      `PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\n${rnd(64, B64)}\nPrivate-Lines: 1\n${putty}\nPrivate-MAC: ${rnd(64, HEX)}`,
    ),
  );
  return out;
}

function generic(): SecretShape[] {
  const g = (name: string, secret: string, text: string) => shape(name, "generic", secret, text);
  const s = () => rnd(20);
  const list: SecretShape[] = [];
  let v = s();
  list.push(g("Cookie header", v, `GET /cart Cookie: theme=dark; session=${v}; lang=en`));
  v = s();
  list.push(g("Set-Cookie header", v, `Set-Cookie: sid=${v}; Path=/; HttpOnly; Secure`));
  v = rnd(32);
  list.push(g("URL with a token as the user", v, `fetching https://${v}@git.example.com/shop/api.git`));
  v = s();
  list.push(g("CLI --password value", v, `exec: pg_dump --host db --password ${v} --dbname orders`));
  v = s();
  list.push(g("CLI --password=value", v, `running migrate --password=${v} --verbose`));
  v = s();
  list.push(g("CLI --token value", v, `vault login --token ${v}`));
  v = s();
  list.push(g("mysql -p'pass'", v, `mysql -h db -u root -p'${v}' orders`));
  v = s();
  list.push(g("mysql -ppass", v, `mysqldump -u backup -p${v} shop`));
  v = s();
  list.push(g("redis-cli -a pass", v, `redis-cli -h cache -a ${v} ping`));
  v = s();
  list.push(g(".netrc line", v, `machine api.example.com login deploy password ${v}`));
  v = s();
  list.push(g("credential= pair", v, `upload failed: credential=${v} rejected`));
  v = s();
  list.push(g("auth= pair", v, `proxy request auth=${v} status=407`));
  v = rnd(40, B64);
  list.push(g("Docker config auth", v, `{"auths":{"registry.example.com":{"auth":"${v}"}}}`));
  v = s();
  list.push(g("passwd= pair", v, `ldap bind passwd=${v} failed`));
  v = s();
  list.push(g("sessionid pair", v, `request sessionid=${v} expired`));
  v = s();
  list.push(g("apikey header", v, `X-API-Key: ${v}`));
  v = s();
  list.push(g("X-Auth-Token header", v, `X-Auth-Token: ${v}`));
  v = s();
  list.push(g("private field", v, `config: {"private": "${v}"}`));
  v = s();
  list.push(g("camelCase clientSecret JSON", v, `{"clientId":"shop","clientSecret":"${v}"}`));
  v = s();
  list.push(g("JSON-escaped password", v, `{"msg":"config {\\"password\\":\\"${v}\\"} rejected"}`));
  v = s();
  list.push(g("YAML password with spaces", v, `  password: ${v}`));
  v = rnd(12, "abcdefghijklmnopqrstuvwxyz");
  list.push(g("lowercase YAML password field", v, `db:\n  password: ${v}`));
  v = s();
  list.push(g("env-style SECRET", v, `JWT_SECRET=${v}`));
  v = s();
  list.push(g("quoted password with spaces", `${v} x`, `password="${v} x"`));
  v = rnd(40, HEX);
  list.push(g("hex token after the word token", v, `using token ${v} for upstream`));
  v = rnd(44, B64);
  list.push(g("base64 secret after 'secret is'", v, `the shared secret is ${v}`));
  v = s();
  list.push(g("Proxy-Authorization", v, `Proxy-Authorization: Basic ${v}`));
  v = rnd(64, HEX);
  list.push(
    g(
      "AWS SigV4 Authorization",
      v,
      `Authorization: AWS4-HMAC-SHA256 Credential=AKIA${rnd(16, UPPER_NUM)}/20261101/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=${v}`,
    ),
  );
  v = s();
  list.push(g("query access_token", v, `GET /api/orders?page=2&access_token=${v} 401`));
  v = s();
  list.push(g("query api_key", v, `GET https://api.example.com/v1/data?api_key=${v}`));
  v = s();
  list.push(g("Sentry DSN", v, `SENTRY_DSN=https://${v}@o123.ingest.sentry.io/456`));
  v = s();
  list.push(g("Redis URL with password", v, `dial redis://default:${v}@cache.shop:6379`));
  v = s();
  list.push(g("JDBC password parameter", v, `jdbc:postgresql://db:5432/orders?user=app&password=${v}`));
  v = s();
  list.push(g("ODBC connection string", v, `Server=db;Database=orders;User Id=app;Password=${v};`));
  v = s();
  list.push(g("passphrase field", v, `ssh-keygen passphrase: ${v}`));
  return list;
}

/**
 * Issue 29's classes, one shape per form a pod or a config dump prints them in: whatever the user-info of a URL
 * holds, a name ending in PASSWORD/PASSWD/SECRET/TOKEN/KEY in any case and with any prefix, the credential in
 * the path of a bot or webhook API, vendor token families, and a prefixed random token of a vendor no rule
 * names.
 */
function extended(): SecretShape[] {
  const x = (name: string, secret: string, text: string) => shape(name, "extended", secret, text);
  const out: SecretShape[] = [];
  let v = rnd(12, LOWER_NUM);
  out.push(
    x("URL user-info: a short lowercase token as the user", v, `git clone https://${v}@git.example.com/shop/api.git`),
  );
  v = rnd(20, HEX);
  out.push(x("URL user-info: a hex token as the user", v, `remote: https://${v}@gitlab.example.com/group/app.git`));
  v = `x-access-token`;
  const token = rnd(36);
  out.push(x("URL user-info: user and token with an empty password", token, `https://${token}:@api.example.com/v1`));
  v = rnd(16, LOWER_NUM);
  out.push(
    x(
      "URL user-info: an e-mail as the user",
      `deploy.${v}`,
      `fetch https://deploy.${v}%40example.com@registry.example.com/v2/`,
    ),
  );
  v = rnd(24, B64URL);
  out.push(x("URL user-info: an API key as the user of an amqp URL", v, `dial amqp://${v}@rabbit.shop:5672/orders`));
  v = rnd(18, ALNUM);
  out.push(x("URL user-info: a token as the user of a redis URL", v, `redis://${v}@cache.shop:6379/0 refused`));

  for (const [name, form] of [
    ["DBPASSWORD", (k: string, val: string) => `${k}=${val}`],
    ["ROOTPASSWD", (k: string, val: string) => `export ${k}=${val}`],
    ["APPSECRET", (k: string, val: string) => `${k}: ${val}`],
    ["GITHUBTOKEN", (k: string, val: string) => `env ${k}=${val} ./deploy.sh`],
    ["stripeKey", (k: string, val: string) => `{"${k}":"${val}"}`],
    ["SigningKey", (k: string, val: string) => `${k}=${val}`],
    ["Mysql_Root_Password", (k: string, val: string) => `${k}='${val}'`],
    ["webhookSecret", (k: string, val: string) => `  ${k}: "${val}"`],
    ["REGISTRYTOKEN", (k: string, val: string) => `config dump: REGION=eu-1 ${k}=${val} DEBUG=false`],
    ["smtpPasswd", (k: string, val: string) => `smtp ${k}=${val};`],
  ] as const) {
    const val = rnd(14, ALNUM);
    out.push(x(`${name}=value (a credential suffix with a prefix)`, val, form(name, val)));
  }

  const telegram = `${rnd(9, "123456789")}:AA${rnd(33, B64URL)}`;
  out.push(
    x("Telegram bot token in the API path", telegram, `POST https://api.telegram.org/bot${telegram}/sendMessage 429`),
  );
  const telegramFile = `${rnd(10, "123456789")}:AA${rnd(33, B64URL)}`;
  out.push(
    x(
      "Telegram bot token in a file URL",
      telegramFile,
      `GET https://api.telegram.org/file/bot${telegramFile}/photos/file_1.jpg`,
    ),
  );
  const relay = `${rnd(9, "123456789")}:${rnd(35, B64URL)}`;
  out.push(x("a bot token in a relay's path", relay, `proxy https://tg-relay.internal/bot${relay}/getUpdates failed`));
  v = rnd(26, LOWER_NUM);
  out.push(x("Mattermost incoming webhook", v, `POST https://chat.example.com/hooks/${v} 403`));
  v = rnd(48, ALNUM);
  out.push(x("Rocket.Chat incoming webhook", v, `https://rocket.example.com/hooks/${rnd(24, HEX)}/${v}`));
  v = `${rnd(8, HEX)}-${rnd(4, HEX)}-${rnd(4, HEX)}-${rnd(4, HEX)}-${rnd(12, HEX)}`;
  out.push(x("Feishu bot webhook", v, `https://open.feishu.cn/open-apis/bot/v2/hook/${v}`));
  v = `${rnd(8, HEX)}-${rnd(4, HEX)}-${rnd(4, HEX)}-${rnd(4, HEX)}-${rnd(12, HEX)}`;
  out.push(x("Lark bot webhook", v, `https://open.larksuite.com/open-apis/bot/v2/hook/${v}`));
  v = rnd(22, B64URL);
  out.push(x("IFTTT webhook key", v, `https://maker.ifttt.com/trigger/deploy/with/key/${v}`));
  v = rnd(7, LOWER_NUM);
  out.push(
    x(
      "Zapier catch hook",
      `${rnd(6, "0123456789")}/${v}`.split("/")[1]!,
      `https://hooks.zapier.com/hooks/catch/123456/${v}/`,
    ),
  );
  v = rnd(25, ALNUM);
  out.push(x("Grafana OnCall integration", v, `https://oncall.example.com/integrations/v1/formatted_webhook/${v}/`));
  v = `int_${rnd(20, ALNUM)}`;
  out.push(x("PagerTree integration", v, `https://api.pagertree.com/integration/${v}`));
  v = rnd(40, HEX);
  out.push(x("Squadcast incident webhook", v, `https://api.squadcast.com/v2/incidents/api/${v}`));
  v = rnd(32, LOWER_NUM);
  out.push(x("Spike push webhook", v, `https://hooks.spike.sh/${v}/push-events`));
  v = `${rnd(8, HEX)}-${rnd(4, HEX)}-${rnd(4, HEX)}-${rnd(4, HEX)}-${rnd(12, HEX)}`;
  out.push(x("Zenduty integration", v, `https://www.zenduty.com/api/integration/generic/${v}/`));
  v = `${rnd(8, HEX)}-${rnd(4, HEX)}-${rnd(4, HEX)}-${rnd(4, HEX)}-${rnd(12, HEX)}`;
  out.push(
    x("FireHydrant alerting webhook", v, `https://app.firehydrant.io/integrations/alerting/webhooks/${v}/generic`),
  );
  v = `${rnd(8, HEX)}-${rnd(4, HEX)}-${rnd(4, HEX)}-${rnd(4, HEX)}-${rnd(12, HEX)}`;
  out.push(x("WeCom bot key", v, `https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=${v}`));
  v = rnd(39, B64URL);
  out.push(
    x(
      "Google Chat webhook key",
      v,
      `https://chat.googleapis.com/v1/spaces/AAAA1234/messages?key=${v}&token=${rnd(20, B64URL)}`,
    ),
  );
  v = rnd(32, ALNUM);
  out.push(x("a generic /webhooks/<token> path", v, `delivery to https://hooks.example.com/webhooks/${v} failed: 410`));
  v = rnd(30, B64URL);
  out.push(x("a /token/<token> path", v, `GET /api/v2/token/${v}/refresh 401`));

  const vendorShape = (name: string, secret: string, text = `upstream rejected ${secret}`) => x(name, secret, text);
  out.push(vendorShape("Heroku API key", `HRKU-AA${rnd(58, B64URL)}`));
  out.push(vendorShape("1Password service account token", `ops_eyJ${rnd(180, B64)}`));
  out.push(
    vendorShape(
      "1Password secret key",
      `A3-${rnd(6, UPPER_NUM)}-${rnd(11, UPPER_NUM)}-${rnd(5, UPPER_NUM)}-${rnd(5, UPPER_NUM)}-${rnd(5, UPPER_NUM)}`,
    ),
  );
  out.push(vendorShape("Vercel token", `vcp_${rnd(40)}`));
  out.push(vendorShape("Tailscale auth key", `tskey-auth-${rnd(12)}-${rnd(30)}`));
  out.push(vendorShape("Cloudflare Origin CA key", `v1.0-${rnd(24, HEX)}-${rnd(146, HEX)}`));
  out.push(vendorShape("Azure AD client secret", `${rnd(3, ALNUM)}8Q~${rnd(34, B64URL.replace("-", ""))}`));
  out.push(vendorShape("Twitter bearer token", `${"A".repeat(22)}${rnd(80)}`));
  out.push(vendorShape("Facebook access token", `EAAB${rnd(120)}`));
  out.push(vendorShape("Dropbox short-lived token", `sl.${rnd(140, B64URL)}`));
  out.push(vendorShape("Bitbucket app password", `ATBB${rnd(40)}`));
  out.push(
    vendorShape(
      "Plaid access token",
      `access-production-${rnd(8, HEX)}-${rnd(4, HEX)}-${rnd(4, HEX)}-${rnd(4, HEX)}-${rnd(12, HEX)}`,
    ),
  );
  out.push(vendorShape("Adobe client secret", `p8e-${rnd(32)}`));
  out.push(vendorShape("Clojars token", `CLOJARS_${rnd(60, LOWER_NUM)}`));
  out.push(vendorShape("Contentful token", `CFPAT-${rnd(43, B64URL.replace("-", ""))}`));
  out.push(vendorShape("OpenShift OAuth token", `sha256~${rnd(43, B64URL.replace("-", ""))}`));
  out.push(vendorShape("Sourcegraph token", `sgp_${rnd(16, HEX)}_${rnd(40, HEX)}`));
  out.push(vendorShape("Brevo API key", `xkeysib-${rnd(64, HEX)}-${rnd(16)}`));
  out.push(vendorShape("NuGet API key", `oy2${rnd(43, LOWER_NUM)}`));
  out.push(vendorShape("Perplexity API key", `pplx-${rnd(48)}`));
  out.push(vendorShape("xAI API key", `xai-${rnd(80)}`));
  out.push(vendorShape("Replicate token", `r8_${rnd(37)}`));
  out.push(vendorShape("OpenRouter key", `sk-or-v1-${rnd(64, HEX)}`));
  out.push(vendorShape("legacy sk- API key (OpenAI, DeepSeek)", `sk-${rnd(48)}`));
  out.push(vendorShape("CircleCI personal token", `CCIPAT_${rnd(22)}_${rnd(40, HEX)}`));
  out.push(vendorShape("Buildkite token", `bkua_${rnd(40, HEX)}`));
  out.push(vendorShape("Netlify token", `nfp_${rnd(36)}`));
  out.push(vendorShape("Neon API key", `napi_${rnd(64, LOWER_NUM)}`));
  out.push(vendorShape("Discord bot token", `M${rnd(25, B64URL)}.${rnd(6, B64URL)}.${rnd(38, B64URL)}`));
  out.push(vendorShape("Asana personal token", `1/${rnd(16, "0123456789")}:${rnd(32, HEX)}`));
  out.push(vendorShape("Harness token", `pat.${rnd(22, B64URL)}.${rnd(24, HEX)}.${rnd(20)}`));
  out.push(vendorShape("Octopus Deploy key", `API-${rnd(26, UPPER_NUM)}`));

  // Vendors no rule names, in the common prefix_random format.
  for (const prefix of ["acme_live_", "kp-", "qz_sk_", "orbit_"]) {
    const body = rnd(32);
    out.push(x(`prefixed random token ${prefix}…`, body, `auth failed for ${prefix}${body}`));
  }
  return out;
}

/** Every credential shape of the corpus (at least 150). */
export const SECRET_SHAPES: readonly SecretShape[] = [
  ...base.secrets.map((s) =>
    shape(
      s.name,
      s.name.match(/URL|header|assignment|field|password|secret|query/i) ? "generic" : "secretlint",
      s.secret,
      s.text,
    ),
  ),
  ...vendor(),
  ...privateKeys(),
  ...generic(),
  ...extended(),
];

/** Look-alikes that must stay readable (image digests, UIDs, resourceVersions, commit SHAs, trace ids …). */
export const HARMLESS_SHAPES: readonly HarmlessShape[] = [
  ...base.harmless,
  {
    name: "an image digest in a pull error",
    text: `Failed to pull image "ghcr.io/shop/api@sha256:${rnd(64, HEX)}": not found`,
  },
  {
    name: "a pod UID",
    text: `pod uid ${rnd(8, HEX)}-${rnd(4, HEX)}-${rnd(4, HEX)}-${rnd(4, HEX)}-${rnd(12, HEX)} was deleted`,
  },
  { name: "a resourceVersion in a watch error", text: "too old resource version: 48213 (48990)" },
  { name: "a commit SHA after 'commit'", text: `build of commit ${rnd(40, HEX)} failed` },
  { name: "a W3C trace id", text: `traceparent: 00-${rnd(32, HEX)}-${rnd(16, HEX)}-01` },
  { name: "a trace_id field", text: `{"level":"error","trace_id":"${rnd(32, HEX)}","msg":"timeout"}` },
  { name: "a span id", text: `span_id=${rnd(16, HEX)} error=true` },
  { name: "a containerd id", text: `container id containerd://${rnd(64, HEX)} exited` },
  { name: "a ReplicaSet hash", text: "replicaset shop/api-7c9d8f6b5 has 0 ready" },
  { name: "a postgres auth failure", text: 'FATAL: password authentication failed for user "app"' },
  {
    name: "a serviceaccount token path",
    text: "open /var/run/secrets/kubernetes.io/serviceaccount/token: permission denied",
  },
  {
    name: "a missing Secret volume",
    text: 'MountVolume.SetUp failed for volume "api-token" : secret "api-token" not found',
  },
  { name: "a secret read error in prose", text: "failed to read secret: permission denied" },
  { name: "a token expiry message", text: "token expired at 2026-11-01T00:00:00Z, refreshing" },
  { name: "a Helm release secret", text: "secret sh.helm.release.v1.shop.v42 updated" },
  { name: "a checksum annotation", text: `checksum/config: ${rnd(64, HEX)}` },
  { name: "an etcd revision", text: "etcdserver: mvcc: required revision has been compacted" },
  { name: "a TLS handshake error", text: "remote error: tls: bad certificate from 10.0.3.4:443" },
  // Issue 29: what the new classes must leave alone.
  { name: "an SSH clone URL with the git user", text: "fetch ssh://git@github.com/shop/api.git failed" },
  { name: "a Stripe request id", text: `stripe: request req_${rnd(24)} failed with 402` },
  { name: "a Stripe payment intent id", text: `payment pi_${rnd(24)} requires action` },
  { name: "a named webhook path", text: "POST /webhooks/github 202" },
  { name: "a git hooks path", text: "running .git/hooks/pre-commit" },
  { name: "a URL query without a key", text: "GET /search?q=shoes&page=2 200" },
  {
    name: "a lowercase Kubernetes name with a suffix",
    text: "pod shop/api-7c9d8f6b5-x2x9z-abcdefghijklmnopqrstuvwx restarted",
  },
  {
    name: "an x509 error",
    text: 'x509: certificate signed by unknown authority (possibly because of "crypto/rsa: verification error")',
  },
  { name: "an OCI image id", text: `image id sha256:${rnd(64, HEX)} pulled in 2.1s` },
];

/** The first 8-character window of `secret` (or all of a shorter one) that `text` still shows: a leak. */
export function leakOf(text: string, secret: string): string | undefined {
  const w = Math.min(8, secret.length);
  for (let i = 0; i + w <= secret.length; i++) if (text.includes(secret.slice(i, i + w))) return secret.slice(i, i + w);
  return undefined;
}
