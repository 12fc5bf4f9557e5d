/**
 * A real SMTP server for tests: `smtp-server` on 127.0.0.1 and a free port, every message parsed
 * with mailparser and kept. Plain SMTP on loopback (no STARTTLS), authentication optional unless
 * `user`/`password` are given. `stop()` then `start()` brings it back on the same port (the outage
 * test); `reject(address)` answers 550 to that recipient (a permanent failure, RFC 5321 §4.2.1).
 *
 *   const smtp = await start_smtp();
 *   const tp = await start_provider({ config: { smtp_url: smtp.url, mail_from: "idp@example.com" } });
 *   const mail = await smtp.wait_for("alice@example.com", (m) => m.subject.includes("password"));
 *   const url = smtp.link(mail, `${tp.issuer}/`);
 */
import { SMTPServer, type SMTPServerOptions } from "smtp-server";
import { simpleParser, type AddressObject } from "mailparser";

export type ReceivedMail = {
  /** The first recipient of the envelope (RCPT TO), lower-cased. */
  to: string;
  /** Every envelope recipient, lower-cased. */
  recipients: string[];
  /** The From header's address. */
  from: string;
  subject: string;
  text: string;
  /** The HTML part ("" when the message had none). */
  html: string;
  /** The user the client authenticated as, null without AUTH. */
  auth_user: string | null;
  /** The raw message as received (headers and MIME parts). */
  raw: string;
};

export type TestSmtp = {
  /** `smtp://127.0.0.1:PORT` (with `user:password@` when the server requires authentication). */
  url: string;
  port: number;
  /** Every message received so far, oldest first. */
  messages: ReceivedMail[];
  /**
   * The next message to `to` (matching `predicate`) that no earlier `wait_for` returned: each call
   * takes one message, so a test that expects two mails to one address calls it twice.
   */
  wait_for(to: string, predicate?: (mail: ReceivedMail) => boolean, timeout_ms?: number): Promise<ReceivedMail>;
  /** The first http(s) link in the message (text part, then HTML) that starts with `prefix`. */
  link(mail: ReceivedMail, prefix?: string): string;
  /** Answers 550 to RCPT TO for this address from now on (a permanent failure). */
  reject(address: string): void;
  /** Accepts this address again after `reject`. */
  accept(address: string): void;
  /** Closes the server (open connections are cut); `start()` listens again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  readonly running: boolean;
};

/** The first link starting with `prefix` in the text part, else in the HTML part. */
export function mail_link(mail: ReceivedMail, prefix = ""): string {
  for (const body of [mail.text, mail.html]) {
    for (const match of body.matchAll(/https?:\/\/[^\s"'<>)]+/g)) {
      const url = match[0].replace(/&amp;/g, "&").replace(/[.,;]+$/, "");
      if (url.startsWith(prefix)) return url;
    }
  }
  throw new Error(`no link under ${prefix || "any prefix"} in the mail "${mail.subject}" to ${mail.to}`);
}

function addresses(field: AddressObject | AddressObject[] | undefined): string[] {
  if (!field) return [];
  return (Array.isArray(field) ? field : [field]).flatMap((group) => group.value.map((a) => (a.address ?? "").toLowerCase()));
}

export async function start_smtp(options: { user?: string; password?: string } = {}): Promise<TestSmtp> {
  const messages: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  const rejected = new Set<string>();
  const waiters = new Set<() => void>();
  let server: SMTPServer | null = null;
  let port = 0;

  const requires_auth = options.user !== undefined;
  const server_options: SMTPServerOptions = {
    secure: false,
    disabledCommands: ["STARTTLS"],
    authOptional: !requires_auth,
    allowInsecureAuth: true,
    logger: false,
    // stop() must not wait for a client that keeps its connection (the outage test cuts it).
    closeTimeout: 100,
    onAuth(auth, _session, callback) {
      if (!requires_auth || (auth.username === options.user && auth.password === options.password)) {
        return callback(null, { user: auth.username });
      }
      return callback(Object.assign(new Error("Invalid username or password"), { responseCode: 535 }));
    },
    onRcptTo(address, _session, callback) {
      if (rejected.has(address.address.toLowerCase())) {
        return callback(Object.assign(new Error("Mailbox unavailable"), { responseCode: 550 }));
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks);
        simpleParser(raw)
          .then((parsed) => {
            const recipients = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
            messages.push({
              to: recipients[0] ?? addresses(parsed.to)[0] ?? "",
              recipients,
              from: addresses(parsed.from)[0] ?? "",
              subject: parsed.subject ?? "",
              text: parsed.text ?? "",
              html: typeof parsed.html === "string" ? parsed.html : "",
              auth_user: typeof session.user === "string" ? session.user : null,
              raw: raw.toString("utf8"),
            });
            for (const wake of [...waiters]) wake();
            callback();
          })
          .catch((error: Error) => callback(error));
      });
    },
  };

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const next = new SMTPServer(server_options);
      next.on("error", () => {}); // a client cut off by stop() is not the test's failure
      next.server.once("error", reject);
      next.listen(port, "127.0.0.1", () => {
        port = (next.server.address() as { port: number }).port;
        server = next;
        resolve();
      });
    });

  await listen();
  const credentials = requires_auth ? `${encodeURIComponent(options.user!)}:${encodeURIComponent(options.password ?? "")}@` : "";

  const smtp: TestSmtp = {
    url: `smtp://${credentials}127.0.0.1:${port}`,
    port,
    messages,
    get running() {
      return server !== null;
    },
    wait_for(to, predicate = () => true, timeout_ms = 10_000) {
      const address = to.toLowerCase();
      const find = () => messages.find((m) => !taken.has(m) && m.recipients.includes(address) && predicate(m));
      return new Promise<ReceivedMail>((resolve, reject) => {
        const check = () => {
          const found = find();
          if (!found) return false;
          taken.add(found);
          waiters.delete(check_waiter);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const check_waiter = () => void check();
        const timer = setTimeout(() => {
          waiters.delete(check_waiter);
          const seen = messages.map((m) => `${m.to}: ${m.subject}`).join("; ") || "none";
          reject(new Error(`no mail to ${to} within ${timeout_ms} ms (received: ${seen})`));
        }, timeout_ms);
        if (!check()) waiters.add(check_waiter);
      });
    },
    link: mail_link,
    reject(address) {
      rejected.add(address.toLowerCase());
    },
    accept(address) {
      rejected.delete(address.toLowerCase());
    },
    async stop() {
      const current = server;
      if (!current) return;
      server = null;
      await new Promise<void>((resolve) => current.close(() => resolve()));
    },
    async start() {
      if (server) return;
      await listen();
    },
  };
  return smtp;
}
