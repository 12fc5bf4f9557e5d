/** The SMTP test helper itself: it receives multipart mail, restarts on its port, rejects and authenticates. */
import { afterAll, beforeAll, expect, test } from "./test_api.ts";
import nodemailer from "nodemailer";
import { start_smtp, type TestSmtp } from "./smtp.ts";
import { rejection } from "./settle.ts";

let smtp: TestSmtp;
beforeAll(async () => {
  smtp = await start_smtp();
});
afterAll(() => smtp.stop());

const send = (url: string, to: string, subject = "Hello") =>
  nodemailer.createTransport(url).sendMail({
    from: "idp@example.com",
    to,
    subject,
    text: "Go to https://idp.example.com/reset?t=abc now.",
    html: '<p><a href="https://idp.example.com/reset?t=abc&amp;x=1">reset</a></p>',
  });

test("receives a multipart message and finds its link", async () => {
  await send(smtp.url, "Bob@Example.com");
  const mail = await smtp.wait_for("bob@example.com");
  expect(mail).toMatchObject({ to: "bob@example.com", from: "idp@example.com", subject: "Hello" });
  expect(mail.html).toContain("<a href=");
  expect(smtp.link(mail, "https://idp.example.com/")).toBe("https://idp.example.com/reset?t=abc");
  expect(() => smtp.link(mail, "https://other.example/")).toThrow(/no link/);
});

test("each wait_for takes one message", async () => {
  await send(smtp.url, "carol@example.com", "one");
  await send(smtp.url, "carol@example.com", "two");
  expect((await smtp.wait_for("carol@example.com")).subject).toBe("one");
  expect((await smtp.wait_for("carol@example.com")).subject).toBe("two");
  expect((await rejection(smtp.wait_for("carol@example.com", undefined, 100))).message).toMatch(/no mail to carol/);
});

test("stop refuses connections, start listens again on the same port", async () => {
  const port = smtp.port;
  await smtp.stop();
  expect(await rejection(send(smtp.url, "dave@example.com"))).toBeInstanceOf(Error);
  await smtp.start();
  expect(smtp.port).toBe(port);
  await send(smtp.url, "dave@example.com");
  expect((await smtp.wait_for("dave@example.com")).subject).toBe("Hello");
});

test("reject answers 550; authentication is checked when required", async () => {
  smtp.reject("nobody@example.com");
  expect(await rejection(send(smtp.url, "nobody@example.com"))).toMatchObject({ responseCode: 550 });
  const auth = await start_smtp({ user: "idp", password: "s3cret pass" });
  try {
    await send(auth.url, "erin@example.com");
    expect((await auth.wait_for("erin@example.com")).auth_user).toBe("idp");
    expect(await rejection(send(auth.url.replace("s3cret", "wrong"), "erin@example.com"))).toMatchObject({ responseCode: 535 });
  } finally {
    await auth.stop();
  }
});
