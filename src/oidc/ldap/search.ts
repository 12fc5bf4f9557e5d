/**
 * The search operation (RFC 4511 §4.5) over the tree (tree.ts) as one viewer sees it
 * (directory.ts): the entries of the scope in a fixed order (containers, then users, then
 * groups), those the filter makes TRUE, with the attributes asked for. Limits:
 *
 * - size: at most min(client sizeLimit, IDP_LDAP_SIZE_LIMIT) entries, then sizeLimitExceeded;
 *   with paged results (RFC 2696) pages of at most IDP_LDAP_SIZE_LIMIT, any number of them,
 *   and the client's sizeLimit over all of them;
 * - time: min(client timeLimit, IDP_LDAP_TIME_LIMIT) seconds, checked between pages of rows,
 *   then timeLimitExceeded with what was found (§4.5.1.5).
 *
 * A page is found again from the start at each request (`offset` matches skipped), so nothing
 * of a paged search stays in memory between its pages but its position (session.ts keeps it).
 */
import type { Provider } from "../provider.ts";
import { container, root_dse, selected } from "./entries.ts";
import { group_entries, may_have_class, user_entries, type DirectoryOptions, type View } from "./directory.ts";
import type { Filter } from "./filter.ts";
import { matches, type Entry } from "./filter_match.ts";
import { RESULT, SCOPE, result, type Attribute, type LdapResult, type Request } from "./protocol.ts";
import { locate, type Place } from "./tree.ts";

export type SearchRequest = Extract<Request, { op: "search" }>;

export type SearchContext = {
  idp: Provider;
  options: DirectoryOptions & { size_limit: number; time_limit_seconds: number; start_tls: boolean };
  /** null: nobody is bound (only the root DSE is readable). */
  view: View | null;
  /** Milliseconds, for the time limit (tests pass their own clock). */
  now_ms(): number;
};

export type Found = { dn: string; attributes: Attribute[] };
export type SearchOutcome = { entries: Found[]; result: LdapResult /** Paged: the offset of the next page; null when this was the last. */; next: number | null };

const USER_CLASSES = ["top", "person", "organizationalPerson", "inetOrgPerson", "posixAccount"];
const GROUP_CLASSES = ["top", "groupOfNames", "posixGroup"];

class TimeUp extends Error {}

/** The entries of `place` in `scope`, in a fixed order, a batch at a time. */
async function* in_scope(ctx: SearchContext, view: View, place: Place, scope: number, filter: Filter, deadline: number): AsyncGenerator<Entry[]> {
  const check = () => {
    if (ctx.now_ms() > deadline) throw new TimeUp();
  };
  const self = scope !== SCOPE.one;
  const below = scope !== SCOPE.base;
  const users = async function* () {
    if (!may_have_class(filter, USER_CLASSES)) return;
    for await (const batch of user_entries(ctx.idp, ctx.options, view, filter)) {
      yield batch;
      check();
    }
  };
  const groups = async function* () {
    if (!may_have_class(filter, GROUP_CLASSES)) return;
    yield await group_entries(ctx.idp, ctx.options, view, filter);
    check();
  };
  switch (place.kind) {
    case "base":
      if (self) yield [container(ctx.options.tree, "base")];
      if (!below) return;
      yield [container(ctx.options.tree, "people"), container(ctx.options.tree, "groups")];
      if (scope === SCOPE.sub) {
        yield* users();
        yield* groups();
      }
      return;
    case "people":
    case "groups":
      if (self) yield [container(ctx.options.tree, place.kind)];
      if (below) yield* place.kind === "people" ? users() : groups();
      return;
    default:
      return;
  }
}

/** The one entry a user or group DN names, if the viewer sees it. */
async function leaf(ctx: SearchContext, view: View, place: Extract<Place, { kind: "user" | "group" }>): Promise<Entry | null> {
  const filter: Filter = { type: "equal", attribute: place.kind === "user" ? "uid" : "cn", value: place.kind === "user" ? place.username : place.name };
  if (place.kind === "group") return (await group_entries(ctx.idp, ctx.options, view, filter))[0] ?? null;
  for await (const batch of user_entries(ctx.idp, ctx.options, view, filter)) if (batch[0] !== undefined) return batch[0];
  return null;
}

/**
 * Runs a search. `page`: RFC 2696's page size and where it starts, or null for a plain search.
 * Never throws for what a client sent: every refusal is a result.
 */
export async function search(ctx: SearchContext, request: SearchRequest, page: { size: number; offset: number } | null): Promise<SearchOutcome> {
  const place = locate(ctx.options.tree, request.base);
  const done = (code: number, message = "", matched = ""): SearchOutcome => ({ entries: [], result: { ...result(code, message), matched_dn: matched }, next: null });
  if (place.kind === "invalid") return done(RESULT.invalid_dn_syntax, "the base is not a distinguished name (RFC 4514)");
  if (place.kind === "root_dse") {
    // RFC 4512 §5.1: the root DSE is the base object of a base search of "" only.
    const dse = root_dse(ctx.options.tree, ctx.options.start_tls);
    const found = request.scope === SCOPE.base && matches(request.filter, dse) ? [{ dn: "", attributes: selected(dse, request.attributes, request.types_only) }] : [];
    return { entries: found, result: result(RESULT.success), next: null };
  }
  const view = ctx.view;
  if (view === null) return done(RESULT.insufficient_access_rights, "bind first: only the root DSE is readable without a bind");
  if (place.kind === "none" || place.kind === "service") return done(RESULT.no_such_object, "", place.kind === "none" ? place.matched : "");

  const server_limit = ctx.options.size_limit;
  const client_limit = request.size_limit === 0 ? Number.POSITIVE_INFINITY : request.size_limit;
  const limit = page === null ? Math.min(server_limit, client_limit) : client_limit;
  const page_size = page === null ? Number.POSITIVE_INFINITY : Math.min(page.size, server_limit);
  const offset = page?.offset ?? 0;
  const seconds = Math.min(ctx.options.time_limit_seconds, request.time_limit === 0 ? Number.POSITIVE_INFINITY : request.time_limit);
  const deadline = ctx.now_ms() + seconds * 1000;

  const entries: Found[] = [];
  let index = 0;
  /** What the walk ended with: the entry after a full page, a size or time limit, or the end. */
  let ended = "end" as "page" | "size" | "time" | "end";
  const take = (entry: Entry): boolean => {
    if (!matches(request.filter, entry)) return true;
    if (index >= limit) {
      ended = "size";
      return false;
    }
    if (index >= offset + page_size) {
      ended = "page";
      return false;
    }
    if (index >= offset) entries.push({ dn: entry.dn, attributes: selected(entry, request.attributes, request.types_only) });
    index++;
    return true;
  };
  try {
    if (place.kind === "user" || place.kind === "group") {
      const entry = await leaf(ctx, view, place);
      if (entry === null) return done(RESULT.no_such_object, "", place.kind === "user" ? container(ctx.options.tree, "people").dn : container(ctx.options.tree, "groups").dn);
      if (request.scope !== SCOPE.one) take(entry);
    } else {
      walk: for await (const batch of in_scope(ctx, view, place, request.scope, request.filter, deadline)) {
        for (const entry of batch) if (!take(entry)) break walk;
      }
    }
  } catch (error) {
    if (!(error instanceof TimeUp)) throw error;
    ended = "time";
  }
  if (ended === "time") return { entries, result: result(RESULT.time_limit_exceeded, `the search took longer than ${seconds} seconds`), next: null };
  if (ended === "size")
    return { entries, result: result(RESULT.size_limit_exceeded, `more than ${limit} entries match; use paged results (RFC 2696) or a narrower filter`), next: null };
  return { entries, result: result(RESULT.success), next: ended === "page" ? offset + entries.length : null };
}
