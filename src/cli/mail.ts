/**
 * `idp mail list|retry|test`: the outbox. A running server's worker delivers what is queued
 * (src/app/mail/worker.ts); these commands show it (never the bodies: they may hold single-use
 * links), put a failed message back in the queue, and check the mail settings.
 */
import { load_brand } from "../app/brand.ts";
import { mail_sender } from "../app/mail/transport.ts";
import { create_transport, DELIVERABLE_ADDRESS, load_mail_templates, mail_enabled, MAIL_GIVE_UP_SECONDS, Outbox } from "../app/mail/outbox.ts";
import { themed_templates } from "../app/theme.ts";
import { DEFAULT_MAIL_WORKER, deliver, lease_for } from "../app/mail/worker.ts";
import { Metrics } from "../oidc/ops/metrics.ts";
import type { LogLine } from "../oidc/provider.ts";
import type { MailSummary } from "../store/types.ts";
import { int_option } from "./args.ts";
import { must, type CliContext } from "./context.ts";
import { CliError } from "./errors.ts";
import { format_time, write_table } from "./output.ts";
import { command, type ArgsOf, type Command, type CommandSpec, type OptionSpecs } from "./spec.ts";

const now_seconds = () => Math.floor(Date.now() / 1000);

/** What `list` shows of a message: everything but the bodies. */
function listed(mail: MailSummary) {
  return {
    id: mail.id,
    status: mail.status,
    recipient: mail.recipient,
    template: mail.template,
    subject: mail.subject,
    attempts: mail.attempts,
    created_at: mail.created_at,
    next_attempt_at: mail.status === "queued" ? mail.next_attempt_at : null,
    sent_at: mail.sent_at,
    last_error: mail.last_error,
  };
}

const LIST = {
  summary: "list the outbox, newest first: recipient, template, status, attempts, last error (never the bodies)",
  options: {
    failed: { type: "boolean", help: "only the messages given up on" },
    limit: { type: "string", value: "N", help: "at most N messages (default 100)" },
  },
} as const satisfies CommandSpec<OptionSpecs>;

async function list(ctx: CliContext, { flags }: ArgsOf<typeof LIST>): Promise<void> {
  const limit = int_option("limit", flags.limit, { min: 1, max: 100_000 }) ?? 100;
  const store = await ctx.store();
  const rows = (await store.list_mail({ ...(flags.failed && { status: "failed" as const }), limit })).map(listed);
  ctx.emit(rows, (write) => {
    if (rows.length === 0) return write(flags.failed ? "No failed mail.\n" : "The outbox is empty.\n");
    write_table(
      write,
      ["id", "status", "to", "template", "attempts", "created", "sent / next attempt", "last error"],
      rows.map((m) => [m.id, m.status, m.recipient, m.template, String(m.attempts), format_time(m.created_at), format_time(m.sent_at ?? m.next_attempt_at), m.last_error]),
    );
  });
}

const RETRY = { summary: "put a failed message back in the queue; a running server sends it within moments", positionals: ["ID"] } as const satisfies CommandSpec<OptionSpecs>;

async function retry(ctx: CliContext, { positionals }: ArgsOf<typeof RETRY>): Promise<void> {
  const [id] = positionals;
  const store = await ctx.store();
  const mail = must(await store.get_mail(id!), `no mail "${id}" in the outbox`);
  const now = now_seconds();
  if (!(await store.retry_mail(mail.id, now, now + MAIL_GIVE_UP_SECONDS))) {
    throw new CliError(`mail "${mail.id}" is ${mail.status}, not failed: only a failed message can be retried`);
  }
  ctx.emit({ id: mail.id, status: "queued" }, (write) => write(`Mail ${mail.id} to ${mail.recipient} is queued again; a running server sends it within moments.\n`));
}

const TEST = { summary: "queue a test message; with IDP_SMTP_URL, deliver it at once and print the outcome", positionals: ["ADDRESS"] } as const satisfies CommandSpec<OptionSpecs>;

async function test(ctx: CliContext, { positionals }: ArgsOf<typeof TEST>): Promise<void> {
  const [address] = positionals;
  const config = ctx.config();
  if (!mail_enabled(config)) throw new CliError("mail is off: production mode without IDP_SMTP_URL (set IDP_SMTP_URL and IDP_MAIL_FROM)");
  const store = await ctx.store();
  if (!DELIVERABLE_ADDRESS.test(address!)) throw new CliError(`"${address}" is not an e-mail address (one mailbox, name@example.com)`);
  // Rendered as the server would: the operator's brand and theme (a bad one is refused here too).
  const brand = load_brand(config);
  const outbox = new Outbox(store, config.issuer, { now: now_seconds, brand, templates: themed_templates(load_mail_templates(), config.brand.theme_dir, "mail/") });
  const id = await outbox.queue({ to: address!, template: "test", data: {} });
  if (config.smtp_url === undefined) {
    return ctx.emit({ id, status: "queued", delivered: false, transport: "log" }, (write) =>
      write(`Test mail ${id} queued. IDP_SMTP_URL is not set (development): the running server writes it to its log.\n`),
    );
  }
  // Deliver it now, as the worker would, so the outcome is known before the command ends.
  const logs: LogLine[] = [];
  const transport = create_transport(config, (line) => void logs.push(line))!;
  try {
    const [claimed] = await store.claim_mail(now_seconds(), { id, lease_seconds: lease_for(1) });
    if (claimed === undefined) {
      return ctx.emit({ id, status: "queued", delivered: false }, (write) => write(`Test mail ${id} queued; a running server took it over for delivery.\n`));
    }
    const outcome = await deliver(
      {
        idp: { store, now: now_seconds, log: (line) => void logs.push(line), metrics: new Metrics() },
        transport,
        from: mail_sender(config.mail_from!, brand.name),
        options: DEFAULT_MAIL_WORKER,
      },
      claimed,
    );
    const result = {
      id,
      status: outcome.status === "retry" ? "queued" : outcome.status,
      delivered: outcome.status === "sent",
      server: transport.description,
      ...("error" in outcome && { error: outcome.error }),
    };
    if (outcome.status === "sent") {
      return ctx.emit(result, (write) => write(`Test mail ${id} sent to ${address} through ${transport.description}.\n`));
    }
    if (ctx.json) ctx.emit(result, () => {});
    const error = "error" in outcome ? outcome.error : "another worker took the message over";
    throw new CliError(
      outcome.status === "retry"
        ? `the test mail was not delivered through ${transport.description}: ${error} (it stays queued; a running server retries it)`
        : `the test mail was not delivered through ${transport.description}: ${error}`,
    );
  } finally {
    transport.close();
  }
}

/** The sub-commands, in the order the help lists them. */
export const mail_commands: Record<string, Command> = { list: command(LIST, list), retry: command(RETRY, retry), test: command(TEST, test) };
