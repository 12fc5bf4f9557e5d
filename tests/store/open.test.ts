/** Choosing the adapter from the database URL. */
import { describe, expect, test } from "../helpers/test_api.ts";
import { open_store, parse_database_url } from "../../src/store/open.ts";
import { StoreError } from "../../src/store/types.ts";
import { rejection } from "../helpers/settle.ts";

describe("parse_database_url", () => {
  test("sqlite forms", () => {
    expect(parse_database_url("sqlite:./data/idp.db")).toEqual({ kind: "sqlite", path: "./data/idp.db" });
    expect(parse_database_url("sqlite:/var/lib/idp/idp.db")).toEqual({ kind: "sqlite", path: "/var/lib/idp/idp.db" });
    expect(parse_database_url("sqlite:///var/lib/idp/idp.db")).toEqual({ kind: "sqlite", path: "/var/lib/idp/idp.db" });
    expect(parse_database_url("sqlite://./idp.db")).toEqual({ kind: "sqlite", path: "./idp.db" });
    expect(parse_database_url("sqlite::memory:")).toEqual({ kind: "sqlite", path: ":memory:" });
  });

  test("postgres forms keep the URL as given", () => {
    for (const url of ["postgres://u:p@db:5432/idp", "postgresql://db/idp?sslmode=require"]) {
      expect(parse_database_url(url)).toEqual({ kind: "postgres", url });
    }
  });

  test("anything else is a StoreError naming the accepted forms", () => {
    for (const bad of ["", "mysql://db/idp", "sqlite:", "./idp.db", "postgres:db"]) {
      expect(() => parse_database_url(bad)).toThrow(StoreError);
    }
    expect(() => parse_database_url("mysql://x")).toThrow(/sqlite:.*postgres:\/\//);
  });

  test("open_store rejects an unknown scheme", async () => {
    expect(await rejection(open_store("redis://localhost"))).toBeInstanceOf(StoreError);
  });
});
