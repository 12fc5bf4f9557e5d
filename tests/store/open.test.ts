/** Choosing the adapter from the database URL. */
import { describe, expect, test } from "bun:test";
import { openStore, parseDatabaseUrl } from "../../src/store/open.ts";
import { StoreError } from "../../src/store/types.ts";
import { rejection } from "../helpers/settle.ts";

describe("parseDatabaseUrl", () => {
  test("sqlite forms", () => {
    expect(parseDatabaseUrl("sqlite:./data/idp.db")).toEqual({ kind: "sqlite", path: "./data/idp.db" });
    expect(parseDatabaseUrl("sqlite:/var/lib/idp/idp.db")).toEqual({ kind: "sqlite", path: "/var/lib/idp/idp.db" });
    expect(parseDatabaseUrl("sqlite:///var/lib/idp/idp.db")).toEqual({ kind: "sqlite", path: "/var/lib/idp/idp.db" });
    expect(parseDatabaseUrl("sqlite://./idp.db")).toEqual({ kind: "sqlite", path: "./idp.db" });
    expect(parseDatabaseUrl("sqlite::memory:")).toEqual({ kind: "sqlite", path: ":memory:" });
  });

  test("postgres forms keep the URL as given", () => {
    for (const url of ["postgres://u:p@db:5432/idp", "postgresql://db/idp?sslmode=require"]) {
      expect(parseDatabaseUrl(url)).toEqual({ kind: "postgres", url });
    }
  });

  test("anything else is a StoreError naming the accepted forms", () => {
    for (const bad of ["", "mysql://db/idp", "sqlite:", "./idp.db", "postgres:db"]) {
      expect(() => parseDatabaseUrl(bad)).toThrow(StoreError);
    }
    expect(() => parseDatabaseUrl("mysql://x")).toThrow(/sqlite:.*postgres:\/\//);
  });

  test("openStore rejects an unknown scheme", async () => {
    expect(await rejection(openStore("redis://localhost"))).toBeInstanceOf(StoreError);
  });
});
