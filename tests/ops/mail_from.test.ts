/**
 * The From of outgoing mail (IDP_MAIL_FROM, RFC 5322 §3.4 mailbox), through a real SMTP server
 * (tests/helpers/smtp.ts): a name and an address as operators write them (`Example ID
 * <idp@example.com>`, a quoted name, a name in UTF-8) reach the From header with the name; a bare
 * address goes out under the brand's name (IDP_BRAND_NAME, else the issuer's host). Settings that
 * are no mailbox are refused at start, naming IDP_MAIL_FROM.
 */
import { afterAll, beforeAll, expect, test } from "../helpers/test_api.ts";
import { simpleParser } from "mailparser";
import { load_config } from "../../src/app/config.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { start_smtp, type ReceivedMail, type TestSmtp } from "../helpers/smtp.ts";

let smtp: TestSmtp;
const started: TestProvider[] = [];

beforeAll(async () => {
  smtp = await start_smtp();
});
afterAll(async () => {
  for (const tp of started) await tp.stop();
  await smtp.stop();
});

let next = 1;
/** Starts a provider with these settings, has it mail one message, and returns the message as received. */
async function mail_from(config: Record<string, unknown>): Promise<{ tp: TestProvider; mail: ReceivedMail; from: { name: string; address: string } }> {
  const tp = await start_provider({ config: { smtp_url: smtp.url, ...config } });
  started.push(tp);
  const to = `reader${next++}@example.com`;
  await tp.provider.mail.send({ to, template: "test", data: {} });
  const mail = await smtp.wait_for(to);
  const parsed = await simpleParser(mail.raw);
  const from = (Array.isArray(parsed.from) ? parsed.from[0] : parsed.from)!.value[0]!;
  return { tp, mail, from: { name: from.name ?? "", address: from.address ?? "" } };
}

/** The raw From header line of a message. */
function from_header(mail: ReceivedMail): string {
  return /^From: (.*)$/im.exec(mail.raw)![1]!.trim();
}

test("a name and an address: the From header carries the name", async () => {
  const { mail, from } = await mail_from({ mail_from: "Example ID <idp@example.com>" });
  expect(from_header(mail)).toBe("Example ID <idp@example.com>");
  expect(from).toEqual({ name: "Example ID", address: "idp@example.com" });
  expect(mail.from).toBe("idp@example.com");
});

test("a quoted name with specials, and a name in UTF-8, arrive as written", async () => {
  const quoted = await mail_from({ mail_from: '"Example, Inc." <idp@example.com>' });
  expect(from_header(quoted.mail)).toBe('"Example, Inc." <idp@example.com>');
  expect(quoted.from).toEqual({ name: "Example, Inc.", address: "idp@example.com" });
  const utf8 = await mail_from({ mail_from: "Zürcher Konto <konto@example.ch>" });
  expect(utf8.from).toEqual({ name: "Zürcher Konto", address: "konto@example.ch" });
});

test("a bare address goes out under the brand's name, else the issuer's host", async () => {
  const branded = await mail_from({ mail_from: "idp@example.com", brand: { name: "Acme Sign-in" } });
  expect(from_header(branded.mail)).toContain("Acme Sign-in");
  expect(branded.from).toEqual({ name: "Acme Sign-in", address: "idp@example.com" });
  const plain = await mail_from({ mail_from: "idp@example.com" });
  expect(plain.from).toEqual({ name: new URL(plain.tp.issuer).host, address: "idp@example.com" });
});

test("what is no RFC 5322 mailbox is refused at start, naming IDP_MAIL_FROM", () => {
  for (const value of [
    "Example ID idp@example.com",
    "Example, Inc. <idp@example.com>",
    "Example ID <not an address>",
    '"Unclosed <idp@example.com>',
    "Example\r\nBcc: spy@example.com <idp@example.com>",
    "<>",
  ]) {
    expect(() => load_config({ IDP_SMTP_URL: "smtp://mail.example.com", IDP_MAIL_FROM: value })).toThrow(/mail_from \(IDP_MAIL_FROM\): must be an e-mail address/);
  }
  for (const value of ["idp@example.com", "Example ID <idp@example.com>", '"Example, Inc." <idp@example.com>', "John Q. Public <jqp@example.com>", "<idp@example.com>"]) {
    expect(load_config({ IDP_SMTP_URL: "smtp://mail.example.com", IDP_MAIL_FROM: value }).mail_from).toBe(value);
  }
});
