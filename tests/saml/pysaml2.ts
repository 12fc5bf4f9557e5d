/**
 * A pysaml2 service provider for the tests (tests/saml/pysaml2_sp.py, on Debian's
 * python3-pysaml2 and xmlsec1): its key and certificate, our metadata as it fetched it, and one
 * Python process that answers its operations (build an AuthnRequest, validate our Response),
 * one JSON line each.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { certificate_pem } from "../../src/oidc/saml/certificate.ts";
import { sp_key } from "../helpers/saml.ts";

export const PYTHON = "/usr/bin/python3";
const SCRIPT = join(import.meta.dirname, "pysaml2_sp.py");

/** pysaml2 and xmlsec1 are installed (CI installs python3-pysaml2 and xmlsec1). */
export const pysaml2_available = existsSync("/usr/bin/xmlsec1") && existsSync(PYTHON) && spawnSync(PYTHON, ["-c", "import saml2"], { encoding: "utf8" }).status === 0;
if (!pysaml2_available) console.warn("pysaml2 tests skipped: apt-get install python3-pysaml2 xmlsec1");

export type SpSettings = {
  entity_id: string;
  acs: string;
  /** Its single logout service (HTTP-Redirect and HTTP-POST), when it has one. */
  slo?: string;
  /** Its single logout service over HTTP-POST only. */
  slo_post_only?: boolean;
  authn_requests_signed?: boolean;
  want_assertions_signed?: boolean;
  want_response_signed?: boolean;
  allow_unsolicited?: boolean;
  name_id_format?: string;
  /** It publishes an encryption key of its own (another than its signing key) and decrypts with it. */
  encryption?: boolean;
};

export type RequestOptions = {
  binding: "redirect" | "post";
  relay_state?: string;
  force_authn?: boolean;
  is_passive?: boolean;
  nameid_format?: string | null;
  sign?: boolean;
};

export type ParsedResponse = {
  error?: string;
  issuer: string;
  in_response_to: string | null;
  name_id: string;
  name_id_format: string;
  sp_name_qualifier: string | null;
  attributes: Record<string, string[]>;
  session_index: string;
  authn_context: string;
  audience: string[];
  recipient: string;
  assertion_signed: boolean;
  response_signed: boolean;
};

export type LogoutAnswer = { error?: string; in_response_to: string; status: string; issuer: string; destination: string; xml_signed: boolean; signature_ok: boolean | null };
export type IdpLogoutRequest = {
  error?: string;
  issuer: string;
  destination: string;
  name_id: string;
  name_id_format: string;
  session_index: string[];
  xml_signed: boolean;
  signature_ok: boolean | null;
};

export class PySaml2Sp {
  readonly dir = mkdtempSync(join(tmpdir(), "idp-pysaml2-"));
  private config: Record<string, unknown> = {};
  private process: ChildProcessWithoutNullStreams | null = null;
  private buffered = "";
  private waiting: ((line: string) => void)[] = [];

  private constructor(readonly settings: SpSettings) {}

  /** A service provider with a fresh key; `idp_metadata` is our metadata XML. */
  static async create(settings: SpSettings, idp_metadata: string): Promise<PySaml2Sp> {
    const sp = new PySaml2Sp(settings);
    const key = await sp_key(new URL(settings.entity_id).host);
    writeFileSync(join(sp.dir, "key.pem"), key.pem);
    writeFileSync(join(sp.dir, "cert.pem"), certificate_pem(key.certificate));
    writeFileSync(join(sp.dir, "idp.xml"), idp_metadata);
    sp.config = { ...settings, key_file: join(sp.dir, "key.pem"), cert_file: join(sp.dir, "cert.pem"), idp_metadata: join(sp.dir, "idp.xml") };
    if (settings.encryption === true) {
      const encryption = await sp_key(`enc.${new URL(settings.entity_id).host}`);
      writeFileSync(join(sp.dir, "enc-key.pem"), encryption.pem);
      writeFileSync(join(sp.dir, "enc-cert.pem"), certificate_pem(encryption.certificate));
      sp.config.encryption_key_file = join(sp.dir, "enc-key.pem");
      sp.config.encryption_cert_file = join(sp.dir, "enc-cert.pem");
    }
    return sp;
  }

  private started(): ChildProcessWithoutNullStreams {
    if (this.process !== null) return this.process;
    const child = spawn(PYTHON, [SCRIPT], { stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => void (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.stdout.on("data", (chunk: Buffer) => {
      this.buffered += chunk.toString();
      for (let at = this.buffered.indexOf("\n"); at !== -1; at = this.buffered.indexOf("\n")) {
        const line = this.buffered.slice(0, at);
        this.buffered = this.buffered.slice(at + 1);
        this.waiting.shift()?.(line);
      }
    });
    child.on("exit", (code) => {
      for (const resolve of this.waiting.splice(0)) resolve(JSON.stringify({ failed: `pysaml2 exited (${code}): ${stderr}` }));
    });
    this.process = child;
    return child;
  }

  private async run<T>(command: Record<string, unknown>, overrides: Partial<SpSettings> = {}): Promise<T> {
    const child = this.started();
    const line = await new Promise<string>((resolve) => {
      this.waiting.push(resolve);
      child.stdin.write(`${JSON.stringify({ ...command, config: { ...this.config, ...overrides } })}\n`);
    });
    const answer = JSON.parse(line) as T & { failed?: string };
    if (answer.failed !== undefined) throw new Error(`pysaml2 ${String(command.op)} failed: ${answer.failed}`);
    return answer;
  }

  /** The SP's own metadata, as pysaml2 writes it. */
  async metadata(): Promise<string> {
    return (await this.run<{ metadata: string }>({ op: "metadata" })).metadata;
  }

  request(options: RequestOptions, overrides: Partial<SpSettings> = {}): Promise<{ id: string; url?: string; action?: string; fields?: Record<string, string> }> {
    return this.run({ op: "request", ...options }, overrides);
  }

  /** pysaml2's reading of our Response; `outstanding` maps the request ids it expects an answer to. */
  response(saml_response: string, outstanding: Record<string, string> | null, overrides: Partial<SpSettings> = {}): Promise<ParsedResponse> {
    return this.run({ op: "response", saml_response, outstanding }, overrides);
  }

  /** A LogoutRequest to our single logout service for the NameID and SessionIndex it was given. */
  logout_request(options: {
    binding: "redirect" | "post";
    name_id: { value: string; format: string; name_qualifier?: string | null; sp_name_qualifier?: string | null };
    session_index: string | null;
    sign?: boolean;
    relay_state?: string;
  }): Promise<{ id: string; url?: string; action?: string; fields?: Record<string, string> }> {
    return this.run({ op: "logout_request", ...options });
  }

  /** pysaml2's reading of our LogoutResponse; `query` the Redirect binding's parameters (their signature is checked with our certificate). */
  logout_response(binding: "redirect" | "post", saml_response: string, query: Record<string, string> | null = null): Promise<LogoutAnswer> {
    return this.run({ op: "logout_response", binding, saml_response, query });
  }

  /** pysaml2's reading of our LogoutRequest (IdP-initiated). */
  idp_logout_request(binding: "redirect" | "post", saml_request: string, query: Record<string, string> | null = null): Promise<IdpLogoutRequest> {
    return this.run({ op: "idp_logout_request", binding, saml_request, query });
  }

  cleanup(): void {
    this.process?.stdin.end();
    this.process?.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
