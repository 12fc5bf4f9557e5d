/**
 * The account page's list of the user's browser sessions: which browser, from where, when last
 * seen, and which one is this browser, so a user can recognise a session that is not theirs
 * and end it (POST /account/sessions).
 *
 * A session is named on the page by its `sid` (logout/sid.ts), never by its cookie or database
 * key; the endpoint only ends sessions of the signed-in user.
 */
import type { AccountSession } from "../../oidc/browser/account_guard.ts";
import { session_sid } from "../../oidc/logout/sid.ts";
import type { Provider } from "../../oidc/provider.ts";
import type { SessionRow } from "../../store/types.ts";

export type SessionView = {
  sid: string;
  browser: string;
  ip: string | null;
  signed_in: string;
  last_seen: string;
  /** Unix seconds, for the page to format in its language (oidc/ui/catalogs.ts). */
  /** `browser` as a catalog message. */
  browser_message: { key: string; values: Record<string, string> };
  signed_in_at: number;
  last_seen_at: number;
  current: boolean;
};

/** Ordered: the most specific names first (Edge and Opera also say "Chrome", Chrome says "Safari"). */
const BROWSERS: readonly [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, "Edge"],
  [/\bOPR\/|\bOpera\b/, "Opera"],
  [/\bSamsungBrowser\//, "Samsung Internet"],
  [/\bFirefox\/|\bFxiOS\//, "Firefox"],
  [/\b(?:Headless)?Chrome\/|\bCriOS\//, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\//, "Safari"],
];

const SYSTEMS: readonly [RegExp, string][] = [
  [/\b(?:iPhone|iPad|iPod)\b/, "iOS"],
  [/\bAndroid\b/, "Android"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bWindows\b/, "Windows"],
  [/\bMac OS X\b|\bMacintosh\b/, "macOS"],
  [/\bLinux\b/, "Linux"],
];

/** "Firefox on Linux" from a User-Agent header; the plain words when nothing is recognised. */
export function describe_user_agent(user_agent: string | null): string {
  if (user_agent === null || user_agent.trim() === "") return "Unknown browser";
  const browser = BROWSERS.find(([pattern]) => pattern.test(user_agent))?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(user_agent))?.[1];
  if (browser && system) return `${browser} on ${system}`;
  if (browser) return browser;
  if (system) return `A browser on ${system}`;
  // Not a browser we know (a script, a command-line client): its own first word, bounded.
  return user_agent.split(/[\s/]/)[0]!.slice(0, 40) || "Unknown browser";
}

/** The same words as a catalog message (oidc/ui/catalogs.ts), for the page's language. */
export function user_agent_message(user_agent: string | null): { key: string; values: Record<string, string> } {
  if (user_agent === null || user_agent.trim() === "") return { key: "session.unknown_browser", values: {} };
  const browser = BROWSERS.find(([pattern]) => pattern.test(user_agent))?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(user_agent))?.[1];
  if (browser && system) return { key: "session.browser_on", values: { browser, system } };
  if (browser) return { key: "session.name", values: { name: browser } };
  if (system) return { key: "session.a_browser_on", values: { system } };
  const name = user_agent.split(/[\s/]/)[0]!.slice(0, 40);
  return name === "" ? { key: "session.unknown_browser", values: {} } : { key: "session.name", values: { name } };
}

/** A time in plain words, the same for everyone ("22 November 2025, 14:05 UTC"). */
export function plain_time(unix: number): string {
  const at = new Date(unix * 1000);
  const date = at.toLocaleDateString("en-GB", { year: "numeric", month: "long", day: "numeric", timeZone: "UTC" });
  return `${date}, ${at.toISOString().slice(11, 16)} UTC`;
}

function view(row: SessionRow, current_id_hash: string): SessionView {
  return {
    sid: session_sid(row.id_hash),
    browser: describe_user_agent(row.user_agent),
    ip: row.ip,
    signed_in: plain_time(row.created_at),
    last_seen: plain_time(row.last_seen_at),
    browser_message: user_agent_message(row.user_agent),
    signed_in_at: row.created_at,
    last_seen_at: row.last_seen_at,
    current: row.id_hash === current_id_hash,
  };
}

/** The user's live sessions, this browser's first, then the most recently seen. */
export async function sessions_of(idp: Provider, session: AccountSession): Promise<SessionView[]> {
  const now = idp.now();
  const rows = (await idp.store.list_sessions_for_user(session.user.id)).filter((row) => row.expires_at > now);
  rows.sort((a, b) => Number(b.id_hash === session.session.id_hash) - Number(a.id_hash === session.session.id_hash) || b.last_seen_at - a.last_seen_at);
  return rows.map((row) => view(row, session.session.id_hash));
}
