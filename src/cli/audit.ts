/**
 * `idp audit list`: the audit log, newest first (store.list_audit_events).
 */
import { AUDIT_EVENT_TYPES } from "../store/types.ts";
import { named_events } from "../oidc/admin/audit.ts";
import { int_option } from "./args.ts";
import type { CliContext } from "./context.ts";
import { UsageError } from "./errors.ts";
import { format_time, write_table } from "./output.ts";
import { command, type ArgsOf, type Command, type CommandSpec, type OptionSpecs } from "./spec.ts";

/** `--since`: unix seconds, or an ISO 8601 date/time (a date alone means midnight UTC). */
export function parse_since(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const ms = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw new UsageError(`--since "${value}" is neither unix seconds nor an ISO 8601 date (2025-01-31 or 2025-01-31T12:00:00Z)`);
  return Math.floor(ms / 1000);
}

export type { NamedAuditEvent } from "../oidc/admin/audit.ts";

/** `alice (0193…)`: the name beside the id, or the id alone. */
function beside(name: string | null, id: string | null): string | null {
  if (id === null) return null;
  return name === null ? id : `${name} (${id})`;
}

const LIST = {
  summary: "show the audit events, newest first, with the username and client name beside each id",
  options: {
    user: { type: "string", value: "USERNAME|ID", help: "events of this user (an id finds those of deleted users too)" },
    client: { type: "string", value: "CLIENT_ID", help: "events of this client" },
    type: { type: "string", value: "T", help: "events of this type (idp audit --help lists the types)" },
    since: { type: "string", value: "ISO-8601|UNIX-SECONDS", help: "events at or after this time (a date alone means midnight UTC)" },
    limit: { type: "string", value: "N", help: "at most N events (default 100)" },
  },
} as const satisfies CommandSpec<OptionSpecs>;

async function list(ctx: CliContext, { flags }: ArgsOf<typeof LIST>): Promise<void> {
  if (flags.type !== undefined && !(AUDIT_EVENT_TYPES as readonly string[]).includes(flags.type)) {
    throw new UsageError(`unknown event type "${flags.type}"; the types are: ${AUDIT_EVENT_TYPES.join(", ")}`);
  }
  const since = parse_since(flags.since);
  const limit = int_option("limit", flags.limit, { min: 1, max: 100_000 }) ?? 100;
  const store = await ctx.store();
  // --user takes a username or an id; events of deleted users are still found by their id.
  const user_id = flags.user === undefined ? undefined : ((await store.get_user_by_username(flags.user))?.id ?? flags.user);
  const events = await store.list_audit_events({
    ...(user_id !== undefined && { user_id: user_id }),
    ...(flags.client !== undefined && { client_id: flags.client }),
    ...(flags.type !== undefined && { type: flags.type }),
    ...(since !== undefined && { since }),
    limit,
  });
  const named = await named_events(store, events);
  ctx.emit(named, (write) => {
    if (named.length === 0) return write("No audit events.\n");
    write_table(
      write,
      ["at", "type", "outcome", "user", "client", "ip", "details"],
      named.map((e) => [
        format_time(e.at),
        e.type,
        e.outcome,
        beside(e.username, e.user_id),
        beside(e.client_name, e.client_id),
        e.ip,
        e.details ? JSON.stringify(e.details) : null,
      ]),
    );
  });
}

/** The sub-commands, in the order the help lists them. */
export const audit_commands: Record<string, Command> = { list: command(LIST, list) };
