/**
 * Qualifiers a vendor may put between a dotted prefix and the secret: an environment, a region, a config
 * (`dp.st.prd.<token>` is a Doppler service token of the `prd` environment). Up to four segments of 1 to 40
 * token characters, each followed by a dot (issue 41: the class of dotted vendor prefixes).
 */
const QUALIFIERS = String.raw`(?:[A-Za-z0-9_-]{1,40}\.){0,4}`;

/** A vendor pattern whose prefix ends in a dot: the prefix, any qualifiers, then the secret's `body`. */
function dotted(prefix: string, body: string): RegExp {
  return new RegExp(String.raw`\b${prefix}${QUALIFIERS}${body}`, "g");
}

/**
 * Credentials recognised by their own shape, wherever they stand (spec 6.8): vendor tokens with a fixed
 * prefix or structure, after the gitleaks rule set and secretlint's recommended rules. Each entry is the name
 * shown in the marker (`[redacted-<name>]`) and a pattern matching the whole credential. Patterns need a
 * distinctive prefix or structure: a bare run of letters is left to the context rules (pairs.ts, entropy.ts).
 */
export const VENDOR_TOKENS: readonly (readonly [string, RegExp])[] = [
  ["aws-key", /\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b/g],
  ["github-token", /\bgh[pousr]_[A-Za-z0-9]{30,255}\b/g],
  ["github-token", /\bgithub_pat_[A-Za-z0-9_]{60,255}\b/g],
  [
    "gitlab-token",
    /\b(?:glpat|gldt|glrt|glptt|glcbt|glft|glimt|glagent|gloas|glsoat|glffct|glrtr)-[A-Za-z0-9_-]{20,64}(?:\.[A-Za-z0-9_.-]+)?/g,
  ],
  ["gitlab-token", /\bGR1348941[A-Za-z0-9_-]{20,}/g],
  ["slack-token", /\bxox[abposre]-[A-Za-z0-9-]{10,}/g],
  ["slack-token", /\bxapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+/g],
  ["slack-webhook", /\b(?:https?:\/\/)?hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9+/_-]{20,}/g],
  ["discord-webhook", /\b(?:https?:\/\/)?discord(?:app)?\.com\/api\/webhooks\/\d+\/[A-Za-z0-9_-]{30,}/g],
  ["teams-webhook", /\b(?:https?:\/\/)?[a-z0-9-]+\.webhook\.office\.com\/webhookb2\/[A-Za-z0-9@/_-]{30,}/g],
  ["stripe-key", /\b(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,255}\b/g],
  ["stripe-webhook-secret", /\bwhsec_[A-Za-z0-9+/=]{24,}/g],
  ["google-api-key", /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g],
  ["google-oauth-secret", /\bGOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])/g],
  ["google-oauth-token", dotted(String.raw`ya29\.`, "[A-Za-z0-9_-]{20,}")],
  ["google-refresh-token", /\b1\/\/0[A-Za-z0-9_-]{30,}/g],
  ["alibaba-key", /\bLTAI[A-Za-z0-9]{12,20}\b/g],
  ["digitalocean-token", /\bdo[opr]_v1_[a-f0-9]{64}\b/g],
  ["pypi-token", /\bpypi-AgE[A-Za-z0-9_-]{50,}/g],
  ["npm-token", /\bnpm_[A-Za-z0-9]{36}\b/g],
  ["rubygems-token", /\brubygems_[a-f0-9]{48}\b/g],
  ["huggingface-token", /\b(?:hf_|api_org_)[A-Za-z]{34}\b/g],
  ["terraform-token", dotted(String.raw`[A-Za-z0-9]{14}\.atlasv1\.`, "[A-Za-z0-9_=-]{60,}")],
  ["doppler-token", dotted(String.raw`dp\.(?:pt|st|sa|ct|scim|audit)\.`, "[A-Za-z0-9_]{40,}")],
  ["artifactory-key", /\bAKCp[A-Za-z0-9]{69}\b/g],
  ["artifactory-token", /\bcmVmdGtu[A-Za-z0-9]{56}\b/g],
  ["postman-key", /\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b/gi],
  ["square-token", /\bsq0(?:atp|csp|idp)-[0-9A-Za-z_-]{22,43}/g],
  ["square-token", /\bEAAA[A-Za-z0-9_-]{60}(?![A-Za-z0-9_-])/g],
  ["braintree-token", /\baccess_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}/g],
  ["openai-key", /\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}/g],
  ["openai-key", /\bsk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}\b/g],
  ["anthropic-key", /\bsk-ant-(?:api|admin|sid)\d{2}-[A-Za-z0-9_-]{20,}/g],
  ["notion-token", /\bntn_\d{11}[A-Za-z0-9]{35}\b/g],
  ["notion-token", /\bsecret_[A-Za-z0-9]{43}\b/g],
  ["newrelic-key", /\bNR(?:AK|JS|II|RA)-[A-Za-z0-9_-]{19,32}(?![A-Za-z0-9_-])/g],
  ["atlassian-token", /\bAT(?:ATT|CTT)3[A-Za-z0-9_=-]{100,}/g],
  ["vault-token", dotted(String.raw`hv[sbr]\.`, "[A-Za-z0-9_-]{24,}")],
  ["age-secret-key", /\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b/g],
  ["linear-key", /\blin_(?:api|oauth)_[A-Za-z0-9]{40}\b/g],
  ["sendgrid-key", /\bSG\.[A-Za-z0-9=_.-]{66}/g],
  ["mailgun-key", /\bkey-[0-9a-f]{32}\b/g],
  ["mailchimp-key", /\b[0-9a-f]{32}-us\d{1,2}\b/g],
  ["shopify-token", /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b/g],
  ["twilio-key", /\bSK[0-9a-fA-F]{32}\b/g],
  // No word boundary before the id: Telegram's API puts it right after `bot` (`/bot123456789:AA…/sendMessage`).
  ["telegram-token", /(?<!\d)\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/g],
  ["databricks-token", /\bdapi[a-f0-9]{32}(?:-\d)?\b/g],
  ["dynatrace-token", dotted(String.raw`dt0c01\.`, String.raw`[A-Z0-9]{24}\.[A-Z0-9]{64}\b`)],
  ["pulumi-token", /\bpul-[a-f0-9]{40}\b/g],
  ["flyio-token", /\bfo1_[A-Za-z0-9_-]{43}/g],
  ["planetscale-token", /\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,64}/g],
  ["supabase-token", /\bsbp_[a-f0-9]{40}\b/g],
  ["sentry-token", /\bsntr[yu][su]?_[A-Za-z0-9+/=_-]{40,}/g],
  ["grafana-token", /\bgl(?:c|sa)_[A-Za-z0-9+/=_-]{32,}/g],
  ["docker-token", /\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}/g],
  ["figma-token", /\bfigd_[A-Za-z0-9_-]{40}/g],
  ["groq-key", /\bgsk_[A-Za-z0-9]{52}\b/g],
  ["airtable-token", dotted(String.raw`pat[A-Za-z0-9]{14}\.`, String.raw`[a-f0-9]{64}\b`)],
  ["prefect-key", /\bpnu_[A-Za-z0-9]{36}\b/g],
  ["readme-key", /\brdme_[a-z0-9]{70}\b/g],
  ["shippo-token", /\bshippo_(?:live|test)_[a-f0-9]{40}\b/g],
  ["duffel-token", /\bduffel_(?:test|live)_[A-Za-z0-9_=-]{43}/g],
  ["flutterwave-key", /\bFLW(?:SECK|PUBK)_TEST-[a-hA-H0-9]{32}-X\b/g],
  ["easypost-key", /\bEZ[AT]K[A-Za-z0-9]{54}\b/g],
  ["typeform-token", /\btfp_[A-Za-z0-9_.=-]{59}/g],
  ["mapbox-token", /\bsk\.eyJ[A-Za-z0-9_-]{50,}\.[A-Za-z0-9_-]{20,}/g],
  // Issue 29: families beyond the gitleaks rule set's first cut, from each vendor's documented token format.
  ["heroku-key", /\bHRKU-AA[0-9A-Za-z_-]{58}(?![0-9A-Za-z_-])/g],
  ["onepassword-token", /\bops_eyJ[A-Za-z0-9+/=_-]{100,}/g],
  [
    "onepassword-secret-key",
    /\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b/g,
  ],
  ["vercel-token", /\bvc[pikar]_[A-Za-z0-9]{24,}\b/g],
  ["tailscale-key", /\btskey-(?:[a-z]+-)?[A-Za-z0-9]{6,}-[A-Za-z0-9]{16,}\b/g],
  ["cloudflare-origin-ca-key", /\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}\b/g],
  ["azure-client-secret", /(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g],
  ["twitter-bearer-token", /\bA{22}[A-Za-z0-9%]{30,}/g],
  ["facebook-token", /\bEAA[BCDGI][A-Za-z0-9]{80,}/g],
  ["dropbox-token", dotted(String.raw`sl\.`, "[A-Za-z0-9_-]{130,}")],
  ["bitbucket-app-password", /\bATBB[A-Za-z0-9_=.-]{32,}/g],
  [
    "plaid-token",
    /\baccess-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g,
  ],
  ["adobe-secret", /\bp8e-[A-Za-z0-9]{32}\b/g],
  ["clojars-token", /\bCLOJARS_[A-Za-z0-9]{60}\b/g],
  ["contentful-token", /\bCFPAT-[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g],
  ["frameio-token", /\bfio-u-[A-Za-z0-9_=-]{64}/g],
  ["openshift-token", /\bsha256~[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g],
  ["scalingo-token", /\btk-us-[A-Za-z0-9_-]{48}(?![A-Za-z0-9_-])/g],
  ["sourcegraph-token", /\bsgp_(?:[a-f0-9]{16}_|local_)?[a-f0-9]{40}\b/g],
  ["brevo-key", /\bxkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}\b/g],
  ["nuget-key", /\boy2[a-z0-9]{43}\b/g],
  ["packagist-token", /\bpackagist_[ou][ru]t_[a-f0-9]{68}\b/g],
  ["perplexity-key", /\bpplx-[A-Za-z0-9]{48}\b/g],
  ["xai-key", /\bxai-[A-Za-z0-9]{80}\b/g],
  ["replicate-token", /\br8_[A-Za-z0-9]{37}\b/g],
  ["openrouter-key", /\bsk-or-v1-[a-f0-9]{64}\b/g],
  // OpenAI's legacy keys, DeepSeek and others that use a bare `sk-` with a long random body.
  ["api-key", /\bsk-[A-Za-z0-9]{32,64}\b/g],
  ["infracost-key", /\bico-[A-Za-z0-9]{32}\b/g],
  ["octopus-key", /\bAPI-[A-Z0-9]{26}\b/g],
  ["defined-networking-key", /\bdnkey-[a-z0-9=_-]{26}-[a-z0-9=_-]{52}\b/g],
  ["maxmind-key", /\b[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk\b/g],
  ["harness-token", dotted(String.raw`pat\.`, String.raw`[A-Za-z0-9_-]{22}\.[0-9a-f]{24}\.[A-Za-z0-9]{20}\b`)],
  ["circleci-token", /\bCCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}\b/g],
  ["buildkite-token", /\bbkua_[a-f0-9]{40}\b/g],
  ["netlify-token", /\bnfp_[A-Za-z0-9]{36}\b/g],
  ["render-key", /\brnd_[A-Za-z0-9]{32}\b/g],
  ["neon-key", /\bnapi_[a-z0-9]{64}\b/g],
  ["discord-bot-token", /\b[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}\b/g],
  ["asana-token", /\b[0-2]\/\d{16}(?:\/\d{16})?:[a-f0-9]{32}\b/g],
  ["jwt", /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g],
  // A PEM block base64-encoded once more, as a Secret's data carries it (`tls.key: LS0tLS1CRUdJTi…`).
  ["private-key", /\bLS0tLS1CRUdJTi[A-Za-z0-9+/=]{20,}/g],
  // A PuTTY private key file's body.
  ["private-key", /PuTTY-User-Key-File-\d: [\s\S]*?Private-MAC: [0-9a-f]+/g],
];
