/**
 * One LDAP session (RFC 4511 §5): what a connection is bound as, its paged searches, and the
 * answer to each request, free of sockets (app/ldap_listener.ts moves the bytes). Requests are
 * answered one at a time, in order. The directory is read-only: add, modify, delete and
 * modify DN answer unwillingToPerform (§4.6–§4.9). Extended operations: StartTLS (§4.14, when
 * TLS is configured) and Who am I? (RFC 4532). Controls: paged results (RFC 2696) on searches,
 * ManageDsaIT (RFC 3296, nothing to manage: there are no referrals); any other critical control
 * gets unavailableCriticalExtension (§4.1.11).
 */
import { randomBytes } from "node:crypto";
import type { Provider } from "../provider.ts";
import { bind, type BindConnection } from "./binds.ts";
import { group_entries, user_entries, view_of, type Viewer } from "./directory.ts";
import { BerError } from "./ber.ts";
import { matches, type_in } from "./filter_match.ts";
import { decode_paged_value, encode_paged_value } from "./messages.ts";
import { OID, RESULT, SCOPE, result, type Control, type LdapResult, type RequestMessage, type Response, type ResponseMessage } from "./protocol.ts";
import { search, type SearchContext, type SearchRequest } from "./search.ts";
import { container, root_dse } from "./entries.ts";
import { locate, tree_of, type Tree } from "./tree.ts";
import { attribute_type, normalized } from "./schema.ts";

/** The directory's settings every session shares, worked out once at start (tree_of throws on a bad base DN). */
export type LdapRules = { idp: Provider; options: SearchContext["options"]; now_ms(): number };

export function ldap_rules(idp: Provider, start_tls: boolean, now_ms: () => number = () => performance.now()): LdapRules {
  const ldap = idp.config.ldap;
  const tree: Tree = tree_of(idp.config);
  const options = { tree, posix: ldap.posix, posix_first_id: ldap.posix_first_id, size_limit: ldap.size_limit, time_limit_seconds: ldap.time_limit_seconds, start_tls };
  return { idp, options, now_ms };
}

/** What the listener does after writing the responses: nothing, start TLS on the socket, or close it. */
export type After = "continue" | "start_tls" | "close";

/** The most paged searches one session keeps a position for; the oldest is forgotten first. */
const MAX_PAGED = 16;
/** The search scopes answered (RFC 4511 §4.5.1.2); any other is protocolError. */
const KNOWN_SCOPES: ReadonlySet<number> = new Set(Object.values(SCOPE));

const SUPPORTED_CRITICAL: Record<string, ReadonlySet<string>> = {
  search: new Set([OID.paged_results, OID.manage_dsa_it]),
};

export class LdapSession {
  private viewer: Viewer = { kind: "anonymous" };
  /** Paged searches in progress: cookie (hex) → the search's fingerprint and the next offset. */
  private readonly paged = new Map<string, { fingerprint: string; offset: number }>();

  constructor(
    private readonly rules: LdapRules,
    readonly connection: BindConnection & { start_tls: boolean },
  ) {}

  /** The bound identity's DN; "" when nobody is bound. */
  get bound_dn(): string {
    return this.viewer.kind === "anonymous" ? "" : this.viewer.dn;
  }

  /** TLS is up on the connection (after StartTLS). */
  tls_started(): void {
    this.connection.secure = true;
  }

  async handle(message: RequestMessage): Promise<{ responses: ResponseMessage[]; after: After }> {
    const { id, request } = message;
    const answer = (response: Response, controls: Control[] = []) => ({ responses: [{ id, response, controls }], after: "continue" as After });
    const unsupported = message.controls.find((c) => c.critical && !(SUPPORTED_CRITICAL[request.op]?.has(c.oid) ?? c.oid === OID.manage_dsa_it));
    const refusal = unsupported === undefined ? null : result(RESULT.unavailable_critical_extension, `control ${unsupported.oid} is not supported here`);
    switch (request.op) {
      case "unbind":
        return { responses: [], after: "close" };
      case "abandon":
        // §4.11: no response. Requests run one at a time, so the one named is done already.
        return { responses: [], after: "continue" };
      case "bind": {
        if (refusal !== null) return answer({ op: "bind", result: refusal });
        // §4.2.1: a bind, whatever its outcome, first leaves the session anonymous.
        this.viewer = { kind: "anonymous" };
        this.paged.clear();
        const outcome = await bind(this.rules.idp, this.rules.options.tree, request, this.connection);
        this.viewer = outcome.viewer;
        return answer({ op: "bind", result: outcome.result });
      }
      case "search": {
        if (refusal !== null) return answer({ op: "search_done", result: refusal });
        if (!KNOWN_SCOPES.has(request.scope)) {
          return answer({ op: "search_done", result: result(RESULT.protocol_error, `scope ${request.scope} is not supported here: base (0), one level (1) or subtree (2)`) });
        }
        return this.search(message, request);
      }
      case "compare":
        return answer({ op: "compare", result: refusal ?? (await this.compare(request.entry, request.attribute, request.value)) });
      case "extended":
        return this.extended(id, request.oid, refusal);
      case "write":
        return answer({
          op: "write",
          kind: request.kind,
          result: refusal ?? result(RESULT.unwilling_to_perform, "the directory is read-only: change users and groups with idp or the admin console"),
        });
    }
  }

  private async context(): Promise<SearchContext> {
    const view = this.viewer.kind === "anonymous" ? null : await view_of(this.rules.idp, this.viewer);
    return { idp: this.rules.idp, options: this.rules.options, view, now_ms: this.rules.now_ms };
  }

  private async search(message: RequestMessage, request: SearchRequest): Promise<{ responses: ResponseMessage[]; after: After }> {
    const { id } = message;
    const done = (r: LdapResult, controls: Control[] = []) => ({
      responses: [{ id, response: { op: "search_done", result: r } as Response, controls }],
      after: "continue" as After,
    });
    const control = message.controls.find((c) => c.oid === OID.paged_results);
    let page: { size: number; offset: number } | null = null;
    let fingerprint = "";
    if (control !== undefined) {
      let value: { size: number; cookie: Uint8Array };
      try {
        value = decode_paged_value(control.value);
      } catch (error) {
        if (!(error instanceof BerError)) throw error;
        return done(result(RESULT.protocol_error, `paged results control: ${error.message}`));
      }
      fingerprint = JSON.stringify({ ...request, size_limit: 0 });
      const cookie = hex(value.cookie);
      const held = cookie === "" ? undefined : this.paged.get(cookie);
      if (cookie !== "") {
        this.paged.delete(cookie);
        // RFC 2696 §3: a cookie belongs to the search it came from.
        if (held === undefined || held.fingerprint !== fingerprint) return done(result(RESULT.unwilling_to_perform, "unknown or stale paged results cookie"));
      }
      // RFC 2696 §3: a size of 0 abandons the paged search.
      if (value.size === 0) return done(result(RESULT.success), [paged_control(new Uint8Array(0))]);
      page = { size: value.size, offset: held?.offset ?? 0 };
    }
    const outcome = await search(await this.context(), request, page);
    const responses: ResponseMessage[] = outcome.entries.map((entry) => ({ id, response: { op: "search_entry", dn: entry.dn, attributes: entry.attributes }, controls: [] }));
    let controls: Control[] = [];
    if (page !== null) {
      let cookie = new Uint8Array(0);
      if (outcome.next !== null) {
        cookie = randomBytes(16);
        if (this.paged.size >= MAX_PAGED) this.paged.delete(this.paged.keys().next().value!);
        this.paged.set(hex(cookie), { fingerprint, offset: outcome.next });
      }
      controls = [paged_control(cookie)];
    }
    responses.push({ id, response: { op: "search_done", result: outcome.result }, controls });
    return { responses, after: "continue" };
  }

  private async compare(dn: string, attribute: string, value: string): Promise<LdapResult> {
    // A custom attribute (custom_attributes.ts) is a type of the entries that carry it: known once the entry is.
    if (attribute_type(attribute) === null && !/^[A-Za-z][A-Za-z0-9-]*$/.test(attribute)) return result(RESULT.undefined_attribute_type, `no attribute ${attribute} here`);
    const place = locate(this.rules.options.tree, dn);
    if (place.kind === "invalid") return result(RESULT.invalid_dn_syntax, "not a distinguished name (RFC 4514)");
    const context = await this.context();
    const tree = this.rules.options.tree;
    let entry = place.kind === "root_dse" ? root_dse(tree, this.rules.options.start_tls) : null;
    if (entry === null && context.view === null) return result(RESULT.insufficient_access_rights, "bind first");
    if (context.view !== null) {
      if (place.kind === "base" || place.kind === "people" || place.kind === "groups") entry = container(tree, place.kind);
      if (place.kind === "user") {
        for await (const batch of user_entries(context.idp, context.options, context.view, { type: "equal", attribute: "uid", value: place.username })) entry ??= batch[0] ?? null;
      }
      if (place.kind === "group") entry = (await group_entries(context.idp, context.options, context.view, { type: "equal", attribute: "cn", value: place.name }))[0] ?? null;
    }
    if (entry === null) return { ...result(RESULT.no_such_object), matched_dn: place.kind === "none" ? place.matched : "" };
    const type = type_in(entry, attribute);
    if (type === null) return result(RESULT.undefined_attribute_type, `no attribute ${attribute} here`);
    if ((entry.attributes[type.name]?.length ?? 0) === 0) return result(RESULT.no_such_attribute, `the entry has no ${type.name}`);
    if (normalized(type.syntax, value) === null) return result(RESULT.compare_false);
    // §4.10: the assertion's equality rule decides.
    return result(matches({ type: "equal", attribute: type.name, value }, entry) ? RESULT.compare_true : RESULT.compare_false);
  }

  private extended(id: number, oid: string, refusal: LdapResult | null): { responses: ResponseMessage[]; after: After } {
    const reply = (r: LdapResult, name: string | null, value: Uint8Array | null, after: After = "continue") => ({
      responses: [{ id, response: { op: "extended", result: r, name, value } as Response, controls: [] }],
      after,
    });
    if (refusal !== null) return reply(refusal, null, null);
    if (oid === OID.who_am_i) {
      // RFC 4532 §2.2: "dn:<DN>", or empty for an anonymous session; no responseName.
      const dn = this.bound_dn;
      return reply(result(RESULT.success), null, new TextEncoder().encode(dn === "" ? "" : `dn:${dn}`));
    }
    if (oid === OID.start_tls) {
      // §4.14.1: TLS already up (LDAPS, or a StartTLS before), or not offered here (no certificate).
      if (this.connection.secure) return reply(result(RESULT.operations_error, "TLS is already established"), OID.start_tls, null);
      if (!this.connection.start_tls) return reply(result(RESULT.protocol_error, "StartTLS is not offered here (IDP_LDAP_TLS_CERT is not set)"), OID.start_tls, null);
      return reply(result(RESULT.success), OID.start_tls, null, "start_tls");
    }
    // §4.12: an extended operation the server does not know.
    return reply(result(RESULT.protocol_error, `unknown extended operation ${oid}`), null, null);
  }
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function paged_control(cookie: Uint8Array): Control {
  // The total is not counted ahead (RFC 2696 §3 allows 0: unknown).
  return { oid: OID.paged_results, critical: false, value: encode_paged_value(0, cookie) };
}
