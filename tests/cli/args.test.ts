import { describe, expect, test } from "../helpers/test_api.ts";
import { expect_positionals, int_option, parse_args } from "../../src/cli/args.ts";
import { UsageError } from "../../src/cli/errors.ts";

const specs = {
  name: { type: "string" },
  redirect_uri: { type: "string", multiple: true },
  skip_consent: { type: "boolean" },
} as const;

describe("parse_args", () => {
  test("--flag value, --flag=value, repeated flags, booleans and positionals", () => {
    const { flags, positionals } = parse_args(
      ["alice", "--name", "App", "--redirect-uri=https://a.example/cb", "--redirect-uri", "https://b.example/cb", "--skip-consent", "extra"],
      specs,
    );
    expect(flags.name).toBe("App");
    expect(flags.redirect_uri).toEqual(["https://a.example/cb", "https://b.example/cb"]);
    expect(flags.skip_consent).toBe(true);
    expect(flags.json).toBe(false);
    expect(positionals).toEqual(["alice", "extra"]);
  });

  test("absent flags have their empty values", () => {
    const { flags } = parse_args([], specs);
    expect(flags).toMatchObject({ name: undefined, redirect_uri: [], skip_consent: false, help: false });
  });

  test("a value may contain '=' and start with a single dash", () => {
    const { flags } = parse_args(["--name=a=b", "--redirect-uri", "-x"], specs);
    expect(flags.name).toBe("a=b");
    expect(flags.redirect_uri).toEqual(["-x"]);
  });

  test("everything after -- is positional", () => {
    const { flags, positionals } = parse_args(["--", "--name", "x"], specs);
    expect(flags.name).toBeUndefined();
    expect(positionals).toEqual(["--name", "x"]);
  });

  test("-h is --help; --bool=false is allowed", () => {
    expect(parse_args(["-h"], specs).flags.help).toBe(true);
    expect(parse_args(["--skip-consent=false"], specs).flags.skip_consent).toBe(false);
  });

  test("unknown flag is a usage error naming the flag", () => {
    expect(() => parse_args(["--nme", "x"], specs)).toThrow(new UsageError("unknown option --nme"));
    expect(() => parse_args(["-q"], specs)).toThrow(UsageError);
  });

  test("missing value, value on a boolean, repeated single flag are usage errors", () => {
    expect(() => parse_args(["--name"], specs)).toThrow("option --name needs a value");
    expect(() => parse_args(["--name", "--skip-consent"], specs)).toThrow("option --name needs a value");
    expect(() => parse_args(["--skip-consent=yes"], specs)).toThrow("takes no value");
    expect(() => parse_args(["--name", "a", "--name", "b"], specs)).toThrow("given more than once");
  });

  test("snake_case keys are not accepted with underscores on the command line", () => {
    expect(() => parse_args(["--skip_consent"], specs)).toThrow("unknown option --skip_consent");
  });
});

describe("expect_positionals and int_option", () => {
  test("missing and extra positionals", () => {
    expect(expect_positionals(["a"], ["username"])).toEqual(["a"]);
    expect(() => expect_positionals([], ["username"])).toThrow("missing argument <username>");
    expect(() => expect_positionals(["a", "b"], ["username"])).toThrow('unexpected argument "b"');
  });

  test("integers within range", () => {
    expect(int_option("limit", "10", { min: 1, max: 100 })).toBe(10);
    expect(int_option("limit", undefined, { min: 1, max: 100 })).toBeUndefined();
    expect(() => int_option("limit", "ten", { min: 1, max: 100 })).toThrow("--limit must be an integer");
    expect(() => int_option("limit", "0", { min: 1, max: 100 })).toThrow("between 1 and 100");
  });
});
