/**
 * What the mail worker sends through: SMTP (smtp.ts) or, in development without SMTP, the log.
 * The rules never see a transport (they queue through `idp.mail`, oidc/mail.ts), and
 * nodemailer stays behind this interface.
 */
import type { Log } from "../../oidc/provider.ts";

export type OutgoingMail = { from: string; to: string; subject: string; text: string; html: string };

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
