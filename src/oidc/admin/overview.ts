/**
 * What the console's dashboard and settings pages show about the running instance: the counts,
 * the health (database, mail and its outbox, the signing keys), the configuration's warnings and
 * each setting (the provider's `about`, made by app/provider.ts with what `idp config check`
 * uses), the failed sign-ins of the last day and the week's sign-ins (from the audit log), and
 * the test message the settings page sends (the outbox's `test` template, as `idp mail test`).
 */
import type { KeyedCount, MailStatus, MailSummary, StoreOverview, UserRow } from "../../store/types.ts";
import type { Provider, SettingReport } from "../provider.ts";
import { record_console_event } from "./console.ts";

const DAY = 24 * 60 * 60;
/** How many applications and addresses the failed sign-ins list. */
export const FAILED_TOP = 10;
/** How many days the sign-in trend covers, today included. */
export const TREND_DAYS = 7;
/** How many outbox messages the settings page lists, newest first. */
export const OUTBOX_SHOWN = 20;

export type MailHealth = {
  enabled: boolean;
  /** Where mail goes: an SMTP server, the log (development without SMTP), nowhere (off). */
  transport: "smtp" | "log" | "off";
  counts: Record<MailStatus, number>;
};

/** Per alg: the kids that sign now and next, and when the next key takes over on schedule (null: by hand only). */
export type KeyHealth = { alg: string; active: string | null; next: string | null; next_rotation: number | null };

export type TrendDay = { date: string; successes: number; failures: number };

export type Dashboard = {
  version: string;
  issuer: string;
  /** False when the store did not answer: the figures below are then null. */
  database: boolean;
  counts: StoreOverview | null;
  mail: MailHealth | null;
  keys: KeyHealth[];
  warnings: string[];
  failed_by_client: KeyedCount[] | null;
  failed_by_ip: KeyedCount[] | null;
  trend: TrendDay[] | null;
};

export async function mail_health(idp: Provider): Promise<MailHealth> {
  const transport = !idp.mail.enabled ? "off" : idp.config.smtp_url !== undefined ? "smtp" : "log";
  return { enabled: idp.mail.enabled, transport, counts: await idp.store.count_mail() };
}

/** Per configured algorithm: the key that signs now, the published next one, and when it takes over (IDP_KEY_ROTATION_DAYS). */
export function key_health(idp: Provider): KeyHealth[] {
  const keys = idp.keys.list();
  const newest = (alg: string, status: string) => keys.filter((key) => key.alg === alg && key.status === status).sort((a, b) => b.created_at - a.created_at)[0]?.kid ?? null;
  return idp.config.signing_algs.map((alg) => ({ alg, active: newest(alg, "active"), next: newest(alg, "next"), next_rotation: idp.keys.next_rotation(alg) }));
}

/** The UTC date (YYYY-MM-DD) of a unix time. */
const date_of = (at: number) => new Date(at * 1000).toISOString().slice(0, 10);

export async function dashboard(idp: Provider): Promise<Dashboard> {
  const now = idp.now();
  const base = { version: idp.about.version, issuer: idp.config.issuer, keys: key_health(idp), warnings: idp.about.warnings() };
  // The trend's days are UTC days: today and the six before.
  const days_from = now - (now % DAY) - (TREND_DAYS - 1) * DAY;
  try {
    const [counts, mail, stats] = await Promise.all([
      idp.store.count_overview(now, now - DAY),
      mail_health(idp),
      idp.store.sign_in_stats({ failures_since: now - DAY, days_from, top: FAILED_TOP }),
    ]);
    const by_day = new Map(stats.days.map((day) => [day.day, day]));
    const trend = Array.from({ length: TREND_DAYS }, (_, day) => ({
      date: date_of(days_from + day * DAY),
      successes: by_day.get(day)?.successes ?? 0,
      failures: by_day.get(day)?.failures ?? 0,
    }));
    return { ...base, database: true, counts, mail, failed_by_client: stats.failed_by_client, failed_by_ip: stats.failed_by_ip, trend };
  } catch (error) {
    idp.log({ level: "error", msg: "admin console: the dashboard could not read the store", error: (error as Error).message });
    return { ...base, database: false, counts: null, mail: null, failed_by_client: null, failed_by_ip: null, trend: null };
  }
}

export type OutboxLine = Pick<MailSummary, "recipient" | "subject" | "status" | "attempts" | "created_at">;

export type SettingsReport = {
  settings: readonly SettingReport[];
  warnings: string[];
  mail: MailHealth;
  /** The newest OUTBOX_SHOWN messages, never their bodies. */
  outbox: OutboxLine[];
};

export async function settings_report(idp: Provider): Promise<SettingsReport> {
  const [mail, messages] = await Promise.all([mail_health(idp), idp.store.list_mail({ limit: OUTBOX_SHOWN })]);
  const outbox = messages.map(({ recipient, subject, status, attempts, created_at }) => ({ recipient, subject, status, attempts, created_at }));
  return { settings: idp.about.settings, warnings: idp.about.warnings(), mail, outbox };
}

export type TestMailOutcome = { sent: string } | { refused: "mail_off" | "no_address" };

/**
 * Queues the `test` message (the one `idp mail test` sends) to the administrator's own address;
 * the mail worker delivers it. Refused when mail is off or the administrator has no address.
 */
export async function send_test_mail(idp: Provider, admin: UserRow, ip: string): Promise<TestMailOutcome> {
  if (!idp.mail.enabled) return { refused: "mail_off" };
  if (admin.email === null || admin.email === "") return { refused: "no_address" };
  await idp.mail.send({ to: admin.email, template: "test", data: {} });
  await record_console_event(idp, admin, ip, { action: "mail_test", user_id: admin.id });
  return { sent: admin.email };
}
