/**
 * The LDAP listeners (IDP_LDAP_LISTEN: plain with StartTLS; IDP_LDAPS_LISTEN: TLS from the first
 * byte) on portable sockets (node:net, node:tls): they move bytes between clients and the
 * directory's rules (oidc/ldap/session.ts) and keep every connection within bounds:
 *
 * - a PDU is measured from its header before its body is buffered: one announcing more than
 *   LIMITS.max_pdu_bytes (or that is no LDAPMessage at all) ends the connection with a Notice of
 *   Disconnection (protocolError, RFC 4511 §4.4.1), as does one that does not decode;
 * - requests run one at a time; reading pauses while one runs, and while more than
 *   MAX_UNSENT bytes of answers wait for a client that does not read them;
 * - a connection that sends no whole request for IDP_LDAP_IDLE_TIMEOUT seconds is closed, so a
 *   client trickling bytes (slow loris) holds nothing for long; at most IDP_LDAP_MAX_CONNECTIONS
 *   are open at once, and one more is closed at once.
 *
 * Started and stopped with the HTTP server (server.ts); off unless a listen address is set.
 */
import { readFileSync } from "node:fs";
import net from "node:net";
import tls from "node:tls";
import type { Duplex } from "node:stream";
import { parse_listen } from "../config/schema.ts";
import { ListenError, listen_error } from "../fw/runtime/server.ts";
import { may_listen } from "../platform/runtime.ts";
import { BerError } from "../oidc/ldap/ber.ts";
import { decode_request, encode_response, pdu_length } from "../oidc/ldap/messages.ts";
import { notice_of_disconnection, RESULT } from "../oidc/ldap/protocol.ts";
import { LdapSession, ldap_rules, type LdapRules } from "../oidc/ldap/session.ts";
import type { Log, Provider } from "../oidc/provider.ts";
import { StoreUnavailableError } from "../store/types.ts";

/** Answers written but not yet taken by the client, past which reading waits. */
const MAX_UNSENT = 1024 * 1024;

export type LdapListener = {
  /** `host:port` of each listener (the port chosen when the setting said 0). */
  plain: string | null;
  ldaps: string | null;
  /** Open connections now. */
  connections(): number;
  /** Stops listening and ends every connection (a Notice of Disconnection, RFC 4511 §4.4.1). */
  stop(): Promise<void>;
};

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

/** A listen error that says which setting named the address (IDP_LDAP_LISTEN or IDP_LDAPS_LISTEN). */
function named(error: unknown, secure: boolean): unknown {
  if (error instanceof ListenError) error.setting = secure ? "IDP_LDAPS_LISTEN" : "IDP_LDAP_LISTEN";
  return error;
}

/** Starts the configured listeners; null when neither is set. Throws when a certificate cannot be read or an address is taken. */
export async function start_ldap(idp: Provider, log: Log): Promise<LdapListener | null> {
  const config = idp.config.ldap;
  if (config.listen === undefined && config.ldaps_listen === undefined) return null;
  const pem = config.tls_cert !== undefined && config.tls_key !== undefined ? { cert: readFileSync(config.tls_cert), key: readFileSync(config.tls_key) } : null;
  const context = pem === null ? null : tls.createSecureContext(pem);
  const rules = ldap_rules(idp, context !== null);
  const open = new Set<Connection>();
  const accept = (socket: Duplex & net.Socket, secure: boolean) => {
    if (open.size >= config.max_connections) {
      socket.destroy();
      return;
    }
    const connection = new Connection(rules, socket, secure, context, log, () => open.delete(connection));
    open.add(connection);
  };
  const servers: net.Server[] = [];
  const addresses: (string | null)[] = [];
  for (const [setting, secure] of [
    [config.listen, false],
    [config.ldaps_listen, true],
  ] as const) {
    if (setting === undefined) {
      addresses.push(null);
      continue;
    }
    const { host, port } = parse_listen(setting)!;
    // Deno refuses an address outside --allow-net where no error handler sees it: asked first, for words naming the setting.
    if (!may_listen(host, port)) {
      await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
      throw named(listen_error({ code: "NOT_PERMITTED" }, host, port), secure);
    }
    // The certificate itself, not the context: Bun's tls.createServer ignores `secureContext`.
    const server = secure ? tls.createServer({ ...pem! }, (socket) => accept(socket, true)) : net.createServer((socket) => accept(socket, false));
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => resolve());
      });
    } catch (error) {
      await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
      throw named(listen_error(error, host, port), secure);
    }
    servers.push(server);
    const address = server.address() as net.AddressInfo;
    addresses.push(`${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`);
  }
  const [plain, ldaps] = addresses as [string | null, string | null];
  log({ level: "info", msg: "ldap listening", plain, ldaps, base_dn: rules.options.tree.base_text, start_tls: context !== null });
  return {
    plain,
    ldaps,
    connections: () => open.size,
    async stop() {
      const closed = servers.map((server) => new Promise((resolve) => server.close(resolve)));
      // Requests in flight finish first (the store stays open until they do), then every session ends.
      const connections = [...open];
      await Promise.all(connections.map((connection) => connection.settled()));
      for (const connection of connections) connection.end(RESULT.unavailable, "the server is shutting down");
      await Promise.all(closed);
    },
  };
}

/** One client connection: its bytes in, its session, its answers out. */
class Connection {
  private buffer: Uint8Array = new Uint8Array(0);
  private readonly queue: Uint8Array[] = [];
  private running: Promise<void> | null = null;
  private closed = false;
  private idle: ReturnType<typeof setTimeout> | undefined;
  private readonly session: LdapSession;
  private readonly on_data = (chunk: Uint8Array) => this.received(chunk);

  constructor(
    private readonly rules: LdapRules,
    private socket: Duplex & { remoteAddress?: string | undefined },
    secure: boolean,
    private readonly context: tls.SecureContext | null,
    private readonly log: Log,
    private readonly forget: () => void,
  ) {
    const ip = socket.remoteAddress ?? "";
    this.session = new LdapSession(rules, { ip, secure, loopback: LOOPBACK.test(ip), start_tls: context !== null && !secure });
    this.listen(socket);
    this.arm();
  }

  private listen(socket: Duplex): void {
    socket.on("data", this.on_data);
    socket.on("error", () => this.destroy());
    socket.on("close", () => this.destroy());
  }

  /** The idle timer: restarted by each whole request, stopped while one runs. */
  private arm(): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => this.destroy(), this.rules.idp.config.ldap.idle_timeout_seconds * 1000);
  }

  private received(chunk: Uint8Array): void {
    if (this.closed) return;
    const joined = new Uint8Array(this.buffer.length + chunk.length);
    joined.set(this.buffer, 0);
    joined.set(chunk, this.buffer.length);
    this.buffer = joined;
    try {
      for (;;) {
        const length = pdu_length(this.buffer);
        if (length === null || length > this.buffer.length) break;
        this.queue.push(this.buffer.slice(0, length));
        this.buffer = this.buffer.subarray(length);
      }
    } catch (error) {
      if (!(error instanceof BerError)) throw error;
      this.end(RESULT.protocol_error, error.message);
      return;
    }
    this.pump();
  }

  /** Runs the queued requests unless they run already; looks again when they are done. */
  private pump(): void {
    if (this.running !== null || this.queue.length === 0 || this.closed) return;
    this.running = this.run().finally(() => {
      this.running = null;
      this.pump();
    });
  }

  /** Resolves once no request is running. */
  async settled(): Promise<void> {
    await this.running;
  }

  /** Answers the queued requests in order, reading nothing more meanwhile. */
  private async run(): Promise<void> {
    this.socket.pause();
    clearTimeout(this.idle);
    try {
      while (this.queue.length > 0 && !this.closed) {
        const pdu = this.queue.shift()!;
        let message: ReturnType<typeof decode_request>;
        try {
          message = decode_request(pdu);
        } catch (error) {
          if (!(error instanceof BerError)) throw error;
          this.end(RESULT.protocol_error, error.message);
          return;
        }
        const { responses, after } = await this.session.handle(message);
        if (this.closed) return;
        for (const response of responses) this.socket.write(encode_response(response));
        if (after === "close") {
          this.destroy();
          return;
        }
        if (after === "start_tls") {
          this.start_tls();
          return;
        }
        if (this.socket.writableLength > MAX_UNSENT) await new Promise((resolve) => this.socket.once("drain", resolve));
      }
    } catch (error) {
      const unavailable = error instanceof StoreUnavailableError;
      if (!unavailable) this.log({ level: "error", msg: "ldap request failed", error: String(error), stack: (error as Error).stack });
      this.end(unavailable ? RESULT.unavailable : RESULT.other, unavailable ? "the database is unreachable" : "internal error");
      return;
    }
    if (this.closed) return;
    this.arm();
    this.socket.resume();
  }

  /** RFC 4511 §4.14.2: TLS starts right after the success response; bytes sent before it are a protocol error. */
  private start_tls(): void {
    const plain = this.socket;
    if (this.buffer.length > 0 || this.queue.length > 0) {
      this.end(RESULT.protocol_error, "data sent before the TLS handshake");
      return;
    }
    plain.removeListener("data", this.on_data);
    plain.removeAllListeners("close");
    plain.removeAllListeners("error");
    const secure = new tls.TLSSocket(plain as net.Socket, { isServer: true, secureContext: this.context! });
    this.socket = secure;
    this.listen(secure);
    secure.once("secure", () => this.session.tls_started());
    plain.resume();
    this.arm();
  }

  /** Ends the session with a Notice of Disconnection (RFC 4511 §4.4.1). */
  end(code: number, message: string): void {
    if (this.closed) return;
    try {
      this.socket.end(encode_response(notice_of_disconnection(code, message)));
    } catch {
      // The socket is gone already.
    }
    this.closed = true;
    clearTimeout(this.idle);
    this.forget();
    // A client that never reads would keep the socket half-open: it goes after a second.
    setTimeout(() => this.socket.destroy(), 1000).unref?.();
  }

  private destroy(): void {
    this.closed = true;
    clearTimeout(this.idle);
    this.socket.destroy();
    this.forget();
  }
}
