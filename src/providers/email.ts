import { permanent } from "./_kit/outcome.ts";
import { createHash } from "node:crypto";
import type { Transporter } from "nodemailer";
import * as v from "valibot";
import type { Outcome } from "../model/dispatch.ts";
import type { Message } from "../model/message.ts";
import { defineProvider } from "./_kit/define.ts";
import { escapeHtml } from "./_kit/keys.ts";

const Options = v.object({
  host: v.pipe(v.string(), v.minLength(1), v.description("SMTP server.")),
  port: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.maxValue(65_535),
      v.description("Port: 587 with STARTTLS, 465 with TLS."),
    ),
    587,
  ),
  secure: v.optional(
    v.pipe(v.boolean(), v.description("TLS from the first byte (port 465); otherwise STARTTLS is required.")),
    false,
  ),
  requireTls: v.optional(v.pipe(v.boolean(), v.description("Refuse to send without STARTTLS.")), true),
  username: v.optional(v.pipe(v.string(), v.description("SMTP user."))),
  password: v.optional(v.pipe(v.string(), v.description("SMTP password (a credential: ${file:/path})."))),
  from: v.pipe(v.string(), v.email(), v.description("Sender address.")),
  to: v.pipe(v.array(v.pipe(v.string(), v.email())), v.minLength(1), v.description("Recipients.")),
});

/**
 * Email over SMTP through nodemailer (providers.md `email`): STARTTLS required unless `secure` (TLS) or
 * `requireTls: false`. Every message of an incident threads in mail clients by headers, with no state: the
 * announcement's `Message-ID` derives from the incident's key, later messages name it in `In-Reply-To` and
 * `References` and keep its subject behind "Re: ". SMTP 4xx and connection failures are retried, 5xx and
 * authentication failures are permanent. `check` connects and authenticates (`verify`), sending nothing.
 */
export default defineProvider({
  name: "email",
  kind: "info",
  title: "Email (SMTP)",
  guide: { credential: "An SMTP relay account (user and password) allowed to send as `from`." },
  threading: "thread",
  options: Options,
  credentials: ["password"],
  plainText: true,
  create(options, deps) {
    // nodemailer is loaded when mail is first sent or checked, not by every mon (issue 42: idle memory).
    let made: Promise<Transporter> | undefined;
    const transporter = () =>
      (made ??= import("nodemailer").then(({ default: nodemailer }) =>
        nodemailer.createTransport({
          host: options.host,
          port: options.port,
          secure: options.secure,
          requireTLS: !options.secure && options.requireTls,
          ...(options.username ? { auth: { user: options.username, pass: options.password ?? "" } } : {}),
          connectionTimeout: 10_000,
          greetingTimeout: 10_000,
          socketTimeout: 20_000,
        }),
      ));
    return {
      async send(message) {
        try {
          await (await transporter()).sendMail({
            from: options.from,
            to: options.to,
            ...emailHeaders(message, deps.clusterName),
            text: message.text,
            html: `<pre style="font-family:monospace">${escapeHtml(message.text)}</pre>`,
          });
          return { kind: "ok" };
        } catch (error) {
          return classifySmtp(error);
        }
      },
      async check() {
        try {
          await (await transporter()).verify();
          return { kind: "ok" };
        } catch (error) {
          return classifySmtp(error);
        }
      },
    };
  },
});

/** Subject and threading headers: one root `Message-ID` per incident, replies pointing at it. */
export function emailHeaders(
  message: Message,
  cluster: string,
): { subject: string; messageId: string; inReplyTo?: string; references?: string } {
  const thread = message.root.kind === "Cluster" ? message.incidentId : message.dedupKey;
  const root = `<mon.${createHash("sha256").update(thread).digest("hex").slice(0, 24)}@${(cluster || "cluster").replace(/[^A-Za-z0-9.-]/g, "-")}.mon>`;
  const subjectOf = `[mon] ${message.root.kind === "Cluster" ? message.title : `${message.root.kind.toLowerCase()} ${message.root.namespace ? `${message.root.namespace}/` : ""}${message.root.name}`}`;
  if (message.action === "announce" || message.root.kind === "Cluster")
    return {
      subject: message.root.kind === "Cluster" ? subjectOf : `${subjectOf}: ${message.reason}`,
      messageId: root,
    };
  const own = `<mon.${createHash("sha256").update(message.id).digest("hex").slice(0, 24)}@${(cluster || "cluster").replace(/[^A-Za-z0-9.-]/g, "-")}.mon>`;
  return { subject: `Re: ${subjectOf}: ${message.reason}`, messageId: own, inReplyTo: root, references: root };
}

function classifySmtp(error: unknown): Outcome {
  const e = error as { code?: string; responseCode?: number; response?: string; message?: string };
  if (e.code === "EAUTH")
    return permanent(`smtp_auth: ${String(e.response ?? e.message ?? "").slice(0, 200)}`, "unauthorized");
  if (typeof e.responseCode === "number") {
    const reason = `smtp_${e.responseCode}: ${String(e.response ?? "").slice(0, 200)}`;
    return e.responseCode >= 500 ? permanent(reason) : { kind: "retry", reason };
  }
  return { kind: "retry", reason: e.code === "ETIMEDOUT" ? "timeout" : "network" };
}
