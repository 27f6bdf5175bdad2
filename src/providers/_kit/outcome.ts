import type { Outcome, PermanentFailure } from "../../model/dispatch.ts";

/**
 * A refusal for good, with its closed failure decided here, where the vendor's answer is understood (issue
 * 31.6): `failure` when the provider knows it, else read from the vendor's words (permanentFailureOf).
 */
export function permanent(reason: string, failure?: PermanentFailure): Extract<Outcome, { kind: "permanent" }> {
  return { kind: "permanent", reason, failure: failure ?? permanentFailureOf(reason) };
}

/**
 * What a vendor's refusal says, in the words vendors use: a size (HTTP 413, Slack's `msg_too_long`, Discord's
 * "Must be 2000 or fewer in length", Telegram's "message is too long", "payload too large", "exceeds the
 * maximum size"), a credential (401/403, `invalid_auth`, `token_revoked`, an SMTP authentication failure), or
 * anything else. Pure.
 */
export function permanentFailureOf(reason: string): PermanentFailure {
  if (TOO_LARGE.test(reason)) return "too_large";
  if (/^http_40[13]\b/.test(reason) || UNAUTHORIZED.test(reason)) return "unauthorized";
  return "rejected";
}

const TOO_LARGE =
  /^http_413\b|too[_ ]?(?:large|long|big)|(?:payload|entity|body|request|message)[_ ]too|fewer in length|exceeds? (?:the )?(?:maximum|max|limit|size)|max(?:imum)?[_ ](?:size|length)[_ ]exceeded/i;
const UNAUTHORIZED = /(unauthori[sz]ed|forbidden|invalid_auth|not_authed|token_revoked|account_inactive|smtp_auth)/i;
