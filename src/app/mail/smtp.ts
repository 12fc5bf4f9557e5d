/**
 * Delivery through SMTP with nodemailer, from IDP_SMTP_URL:
 * - `smtp://host[:port]`: port 587 by default; STARTTLS when the server offers it (RFC 3207),
 *   plain otherwise, unless `?starttls=required`, which refuses to send without it.
 * - `smtps://host[:port]`: TLS from the first byte (RFC 8314 §3.3), port 465 by default.
 * - `user:password@` (percent-encoded) logs in with AUTH. The certificate is always verified.
 * One connection per message: the outbox delivers a few messages a minute, not a stream.
 * nodemailer is loaded with the first message (about 20 MiB a process that sends none never pays).
 */
import type { Transporter } from "nodemailer";
import { redact_url_password } from "../config.ts";
import { MailDeliveryError, type MailTransport } from "./transport.ts";

/** Seconds before giving up on a silent server; the worker's claim lasts longer (worker.ts). */
const CONNECTION_TIMEOUT_MS = 10_000;
const GREETING_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 30_000;
/** The longest one delivery can take (connection, greeting, then socket idle limits). */
export const SMTP_MAX_DELIVERY_SECONDS = (CONNECTION_TIMEOUT_MS + GREETING_TIMEOUT_MS + 4 * SOCKET_TIMEOUT_MS) / 1000;

/** The SMTP commands whose 5xx answer refuses the message itself (RFC 5321 §4.2.1). */
const MESSAGE_COMMANDS = new Set(["MAIL FROM", "RCPT TO", "DATA"]);

type SmtpError = Error & { code?: string; responseCode?: number; command?: string };

/** Whether a nodemailer error is final for this message (see MailDeliveryError). */
export function is_permanent(error: SmtpError): boolean {
  if (error.code === "EENVELOPE" && error.command === "API") return true; // an address nodemailer cannot use
  const code = error.responseCode ?? 0;
  return code >= 500 && code < 600 && MESSAGE_COMMANDS.has(error.command ?? "");
}

export function smtp_transport(smtp_url: string): MailTransport {
  const url = new URL(smtp_url);
  const secure = url.protocol === "smtps:";
  const options = {
    host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: url.port === "" ? (secure ? 465 : 587) : Number(url.port),
    secure,
    requireTLS: url.searchParams.get("starttls") === "required",
    auth: url.username === "" ? undefined : { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) },
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    greetingTimeout: GREETING_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
    // nodemailer's own logging would print the protocol exchange (AUTH included): off.
    logger: false,
    debug: false,
  };
  let made: Promise<Transporter> | undefined;
  const transport = () => (made ??= import("nodemailer").then((nodemailer) => nodemailer.default.createTransport(options)));
  return {
    kind: "smtp",
    description: redact_url_password(smtp_url),
    async send(mail) {
      try {
        // Name and address given apart, and an explicit envelope: nodemailer never parses an
        // address out of text; it quotes the name or encodes it (RFC 2047) as the header needs.
        await (await transport()).sendMail({
          from: { name: mail.from.name, address: mail.from.address },
          to: { name: "", address: mail.to },
          envelope: { from: mail.from.address, to: [mail.to] },
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
        });
      } catch (error) {
        const err = error as SmtpError;
        throw new MailDeliveryError(err.message ?? String(error), is_permanent(err));
      }
    },
    close() {
      void made?.then((opened) => opened.close());
    },
  };
}
