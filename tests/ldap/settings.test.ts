/**
 * The LDAP settings (src/config/schema.ts `ldap`): off by default; refused at start, naming the
 * variable, when a listener could carry passwords in clear to other hosts or TLS lacks a file;
 * a certificate that cannot be read stops the start with nothing left listening.
 */
import { describe, expect, test } from "../helpers/test_api.ts";
import { ConfigError, load_config } from "../../src/app/config.ts";
import { serve } from "../../src/app/server.ts";
import { open_store } from "../../src/store/open.ts";
import { free_port } from "../helpers/provider.ts";
import { test_certificate } from "./server.ts";
import { rejection } from "../helpers/settle.ts";
import { createServer } from "node:net";
import { ListenError } from "../../src/fw/runtime/server.ts";

const refusal = (env: Record<string, string>): string => {
  try {
    load_config(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  return "";
};

describe("LDAP settings", () => {
  test("off by default; loopback plain LDAP needs no certificate", () => {
    expect(load_config({}).ldap).toMatchObject({ user_binds: "single_factor", posix: false, size_limit: 1000 });
    expect(load_config({}).ldap.listen).toBeUndefined();
    expect(load_config({ IDP_LDAP_LISTEN: "127.0.0.1:3389" }).ldap.listen).toBe("127.0.0.1:3389");
    expect(load_config({ IDP_LDAP_LISTEN: "[::1]:3389" }).ldap.listen).toBe("[::1]:3389");
  });

  test("another address without TLS, LDAPS without a certificate, a certificate without its key: refused, naming the variable", () => {
    expect(refusal({ IDP_LDAP_LISTEN: "0.0.0.0:389" })).toContain("IDP_LDAP_TLS_CERT");
    expect(refusal({ IDP_LDAPS_LISTEN: "0.0.0.0:636" })).toContain("IDP_LDAP_TLS_CERT");
    expect(refusal({ IDP_LDAP_LISTEN: "127.0.0.1:389", IDP_LDAP_TLS_CERT: "/x.pem" })).toContain("IDP_LDAP_TLS_KEY");
    expect(refusal({ IDP_LDAP_LISTEN: "localhost" })).toContain("IDP_LDAP_LISTEN");
    expect(refusal({ IDP_LDAP_LISTEN: "[localhost]:389" })).toContain("IDP_LDAP_LISTEN");
    expect(refusal({ IDP_LDAP_BASE_DN: "example.com" })).toContain("IDP_LDAP_BASE_DN");
    expect(refusal({ IDP_LDAP_USER_BINDS: "some" })).toContain("IDP_LDAP_USER_BINDS");
  });

  test("a certificate that cannot be read stops the start, and nothing is left listening", async () => {
    const { cert } = test_certificate();
    const ldap_port = await free_port();
    const config = load_config({}, { database_url: "sqlite::memory:", ldap: { listen: `127.0.0.1:${ldap_port}`, tls_cert: cert, tls_key: "/nonexistent/key.pem" } });
    const store = await open_store(config.database_url);
    expect((await rejection(serve(config, { store, port: 0, log: () => {}, out: () => {} }))).message).toMatch(/nonexistent/);
    await store.close();
    // The address is free again: a start with a readable key takes it.
    const again = await open_store(config.database_url);
    const served = await serve({ ...config, ldap: { ...config.ldap, tls_key: test_certificate().key } }, { store: again, port: 0, log: () => {}, out: () => {} });
    expect(served.ldap?.plain).toBe(`127.0.0.1:${ldap_port}`);
    await served.stop();
    await again.close();
  });

  test("an address in use stops the start with a ListenError naming IDP_LDAPS_LISTEN, and nothing is left listening", async () => {
    const { cert, key } = test_certificate();
    const [ldap_port, taken_port] = [await free_port(), await free_port()];
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(taken_port, "127.0.0.1", resolve));
    try {
      const config = load_config(
        {},
        { database_url: "sqlite::memory:", ldap: { listen: `127.0.0.1:${ldap_port}`, ldaps_listen: `127.0.0.1:${taken_port}`, tls_cert: cert, tls_key: key } },
      );
      const store = await open_store(config.database_url);
      const error = await rejection(serve(config, { store, port: 0, log: () => {}, out: () => {} }));
      expect(error).toBeInstanceOf(ListenError);
      expect(error).toMatchObject({ code: "EADDRINUSE", setting: "IDP_LDAPS_LISTEN", address: `127.0.0.1:${taken_port}` });
      await store.close();
      // The plain listener opened first was closed again.
      const probe = createServer();
      await new Promise<void>((resolve, reject) => {
        probe.once("error", reject);
        probe.listen(ldap_port, "127.0.0.1", resolve);
      });
      await new Promise((resolve) => probe.close(resolve));
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
