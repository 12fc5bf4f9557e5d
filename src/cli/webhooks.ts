/**
 * `idp webhooks add|list|remove|test|deliveries|retry|events`: subscriptions of URLs to events
 * (oidc/webhooks/). A running server's worker delivers what is queued (app/webhooks/worker.ts);
 * `test` delivers at once and prints the outcome.
 */
import { Metrics } from "../oidc/ops/metrics.ts";
import type { LogLine } from "../oidc/provider.ts";
import { deliver_webhook } from "../oidc/webhooks/deliver.ts";
import { TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES } from "../oidc/webhooks/events.ts";
import { add_subscription, queue_test_delivery, retry_delivery, webhook_view, WebhookInputError, type WebhookContext } from "../oidc/webhooks/subscriptions.ts";
import { DEFAULT_WEBHOOK_WORKER, webhook_lease } from "../app/webhooks/worker.ts";
import { MAIL_STATUSES, type MailStatus, type WebhookDeliveryRow } from "../store/types.ts";
import { int_option } from "./args.ts";
import { must, type CliContext } from "./context.ts";
import { CliError } from "./errors.ts";
import { format_time, write_table } from "./output.ts";
import { command, type ArgsOf, type Command, type CommandSpec, type OptionSpecs } from "./spec.ts";

const now_seconds = () => Math.floor(Date.now() / 1000);

async function context(ctx: CliContext): Promise<WebhookContext> {
  return { config: ctx.config(), store: await ctx.store(), now: now_seconds };
}

const ADD = {
  summary: "subscribe URL to events; prints the signing secret once (whsec_…, Standard Webhooks)",
  positionals: ["URL"],
  options: {
    event: { type: "string", multiple: true, value: "E", help: "an event type, a group (user.*, security.*) or *; repeat for more (see `idp webhooks events`)" },
    secret_stdin: { type: "boolean", help: "read the signing secret (whsec_<base64>) from stdin instead of generating one" },
    description: { type: "string", value: "TEXT", help: "a note for operators" },
  },
} as const satisfies CommandSpec<OptionSpecs>;

async function add(ctx: CliContext, { positionals, flags }: ArgsOf<typeof ADD>): Promise<void> {
  const [url] = positionals;
  const secret = flags.secret_stdin ? await ctx.read_stdin() : undefined;
  try {
    const { webhook, secret: shown } = await add_subscription(await context(ctx), { url: url!, events: flags.event, secret, description: flags.description });
    await ctx.audit({ type: "webhook_created", details: { webhook_id: webhook.id, url: webhook.url, events: webhook.events } });
    ctx.emit({ ...webhook, ...(secret === undefined && { secret: shown }) }, (write) => {
      write(`Webhook ${webhook.id} sends ${webhook.events.join(", ")} to ${webhook.url}.\n`);
      if (secret === undefined) write(`Signing secret (shown once; the receiver verifies with it):\n${shown}\n`);
    });
  } catch (error) {
    if (error instanceof WebhookInputError) throw new CliError(error.message);
    throw error;
  }
}

const LIST = { summary: "list the webhooks: id, URL, events (never the secrets)" } as const satisfies CommandSpec<OptionSpecs>;

async function list(ctx: CliContext): Promise<void> {
  const store = await ctx.store();
  const rows = (await store.list_webhooks()).map(webhook_view);
  ctx.emit(rows, (write) => {
    if (rows.length === 0) return write("No webhooks.\n");
    write_table(
      write,
      ["id", "url", "events", "created", "description"],
      rows.map((w) => [w.id, w.url, w.events.join(","), format_time(w.created_at), w.description]),
    );
  });
}

const REMOVE = { summary: "remove a webhook and its deliveries", positionals: ["ID"] } as const satisfies CommandSpec<OptionSpecs>;

async function remove(ctx: CliContext, { positionals }: ArgsOf<typeof REMOVE>): Promise<void> {
  const [id] = positionals;
  const store = await ctx.store();
  const webhook = must(await store.get_webhook(id!), `no webhook "${id}"`);
  await store.delete_webhook(webhook.id);
  await ctx.audit({ type: "webhook_deleted", details: { webhook_id: webhook.id, url: webhook.url } });
  ctx.emit({ id: webhook.id, removed: true }, (write) => write(`Webhook ${webhook.id} (${webhook.url}) removed.\n`));
}

const TEST = { summary: `deliver a ${TEST_EVENT_TYPE} event to a webhook now and print the outcome`, positionals: ["ID"] } as const satisfies CommandSpec<OptionSpecs>;

async function test(ctx: CliContext, { positionals }: ArgsOf<typeof TEST>): Promise<void> {
  const [id] = positionals;
  const webhooks = await context(ctx);
  const webhook = must(await webhooks.store.get_webhook(id!), `no webhook "${id}"`);
  const queued = await queue_test_delivery(webhooks, webhook);
  const [claimed] = await webhooks.store.claim_webhook_deliveries(now_seconds(), { id: queued.id, lease_seconds: webhook_lease(webhooks, 1) });
  if (claimed === undefined) {
    return ctx.emit({ id: queued.id, status: "queued", delivered: false }, (write) => write(`Test delivery ${queued.id} queued; a running server took it over.\n`));
  }
  const logs: LogLine[] = [];
  const outcome = await deliver_webhook({ ...webhooks, log: (line) => void logs.push(line), metrics: new Metrics() }, claimed, DEFAULT_WEBHOOK_WORKER);
  const result = {
    id: queued.id,
    status: outcome.status === "retry" ? "queued" : outcome.status,
    delivered: outcome.status === "sent",
    ...("error" in outcome && { error: outcome.error }),
  };
  if (outcome.status === "sent") return ctx.emit(result, (write) => write(`Test delivery ${queued.id} received by ${webhook.url}.\n`));
  if (ctx.json) ctx.emit(result, () => {});
  const error = "error" in outcome ? outcome.error : "another worker took the delivery over";
  throw new CliError(
    outcome.status === "retry" ? `test delivery ${queued.id} failed (${error}); it stays queued for the server to retry` : `test delivery ${queued.id} failed: ${error}`,
  );
}

/** What `deliveries` shows: never the payload's body beyond its type. */
function listed(row: WebhookDeliveryRow) {
  const { payload: _payload, locked_until: _locked, give_up_at: _give_up, ...shown } = row;
  return { ...shown, next_attempt_at: row.status === "queued" ? row.next_attempt_at : null };
}

const DELIVERIES = {
  summary: "list deliveries, newest first: event, status, attempts, last error",
  positionals: [],
  options: {
    webhook: { type: "string", value: "ID", help: "only this webhook's" },
    status: { type: "string", value: "STATUS", help: `only those with this status (${MAIL_STATUSES.join(", ")})` },
    limit: { type: "string", value: "N", help: "at most N deliveries (default 100)" },
  },
} as const satisfies CommandSpec<OptionSpecs>;

async function deliveries(ctx: CliContext, { flags }: ArgsOf<typeof DELIVERIES>): Promise<void> {
  const limit = int_option("limit", flags.limit, { min: 1, max: 100_000 }) ?? 100;
  if (flags.status !== undefined && !MAIL_STATUSES.includes(flags.status as MailStatus)) throw new CliError(`--status is one of ${MAIL_STATUSES.join(", ")}`);
  const store = await ctx.store();
  const rows = (
    await store.list_webhook_deliveries({
      ...(flags.webhook !== undefined && { webhook_id: flags.webhook }),
      ...(flags.status !== undefined && { status: flags.status as MailStatus }),
      limit,
    })
  ).map(listed);
  ctx.emit(rows, (write) => {
    if (rows.length === 0) return write("No deliveries.\n");
    write_table(
      write,
      ["id", "webhook", "event", "status", "attempts", "created", "sent / next attempt", "last error"],
      rows.map((d) => [d.id, d.webhook_id, d.event_type, d.status, String(d.attempts), format_time(d.created_at), format_time(d.sent_at ?? d.next_attempt_at), d.last_error]),
    );
  });
}

const RETRY = {
  summary: "put a failed delivery back in the queue; a running server attempts it within moments",
  positionals: ["DELIVERY_ID"],
} as const satisfies CommandSpec<OptionSpecs>;

async function retry(ctx: CliContext, { positionals }: ArgsOf<typeof RETRY>): Promise<void> {
  const [id] = positionals;
  const webhooks = await context(ctx);
  const delivery = must(await webhooks.store.get_webhook_delivery(id!), `no webhook delivery "${id}"`);
  if (!(await retry_delivery(webhooks, delivery.id))) throw new CliError(`delivery "${delivery.id}" is ${delivery.status}, not failed: only a failed delivery can be retried`);
  ctx.emit({ id: delivery.id, status: "queued" }, (write) => write(`Delivery ${delivery.id} is queued again; a running server attempts it within moments.\n`));
}

const EVENTS = { summary: "list the event types a webhook can subscribe to" } as const satisfies CommandSpec<OptionSpecs>;

async function events(ctx: CliContext): Promise<void> {
  ctx.emit(WEBHOOK_EVENT_TYPES, (write) => write(`${WEBHOOK_EVENT_TYPES.join("\n")}\n`));
}

/** The sub-commands, in the order the help lists them. */
export const webhook_commands: Record<string, Command> = {
  add: command(ADD, add),
  list: command(LIST, list),
  remove: command(REMOVE, remove),
  test: command(TEST, test),
  deliveries: command(DELIVERIES, deliveries),
  retry: command(RETRY, retry),
  events: command(EVENTS, events),
};
