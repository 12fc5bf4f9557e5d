/**
 * What the mail worker sends through: SMTP (smtp.ts) or, in development without SMTP, the log.
 * The rules never see a transport (they queue through `idp.mail`, oidc/mail.ts), and
 * nodemailer stays behind this interface.
 */
import { parse_mailbox } from "../../config/mailbox.ts";
import type { Log } from "../../oidc/provider.ts";

/** The From of a message: a display name and an address (RFC 5322 §3.4 mailbox). */
export type Sender = { name: string; address: string };

export type OutgoingMail = { from: Sender; to: string; subject: string; text: string; html: string };

/**
 * The From of outgoing mail: IDP_MAIL_FROM's address with its display name, or the brand's name
 * (IDP_BRAND_NAME, else the issuer's host) when the setting has none, so the mail says who sends it.
 */
export function mail_sender(mail_from: string, brand_name: string): Sender {
  const mailbox = parse_mailbox(mail_from);
  // The config schema accepted nothing else; a bare address is the fallback's own shape.
  if (mailbox === null) return { name: brand_name, address: mail_from.trim() };
  return { name: mailbox.name ?? brand_name, address: mailbox.address };
}

export interface MailTransport {
  /** "smtp", or "log" in development without SMTP. */
  readonly kind: "smtp" | "log";
  /** Where mail goes, safe for logs (no password). */
  readonly description: string;
  /** Resolves once the server accepted the message; raises MailDeliveryError otherwise. */
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/**
 * A failed delivery. `permanent`: the server refused this message for good (a 5xx answer to
 * MAIL FROM, RCPT TO or DATA, RFC 5321 §4.2.1), so retrying cannot help; anything else (no
 * connection, a 4xx, a refused login) is retried.
 */
export class MailDeliveryError extends Error {
  override name = "MailDeliveryError";
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

/**
 * Development without SMTP: each message is one log line with recipient, subject and the text
 * body, so a link in it can be followed locally. Never used in production (mail is off there).
 */
export function log_transport(log: Log): MailTransport {
  return {
    kind: "log",
    description: "the log (development: IDP_SMTP_URL is not set)",
    async send(mail) {
      log({ level: "info", msg: "mail (development, not sent)", to: mail.to, subject: mail.subject, text: mail.text });
    },
    close() {},
  };
}
