/**
 * The shared test API (test_api.ts) behaves as bun:test on both runtimes: what is skipped does
 * not run, hooks run in Bun's order, `.each` spreads its rows, Bun's extra matchers pass and
 * fail with Bun's words, and spies record and restore.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, mock, RUNTIME, spyOn, test } from "./test_api.ts";

const ran: string[] = [];

beforeAll(() => void ran.push("beforeAll"));

describe("skipping", () => {
  test.skipIf(true)("skipIf(true) does not run", () => void ran.push("skipIf(true)"));
  test.skipIf(false)("skipIf(false) runs", () => void ran.push("skipIf(false)"));
  test.if(false)("if(false) does not run", () => void ran.push("if(false)"));
  test.skip("skip does not run", () => void ran.push("skip"));
  describe.skipIf(true)("a skipped group", () => {
    test("does not run", () => void ran.push("skipped group"));
  });
  test("only what was not skipped ran", () => {
    expect(ran).toEqual(["beforeAll", "skipIf(false)"]);
  });
});

describe("hooks", () => {
  const order: string[] = [];
  beforeEach(() => void order.push("beforeEach"));
  afterEach(() => void order.push("afterEach"));
  afterAll(() => expect(order).toEqual(["beforeEach", "one", "afterEach", "beforeEach", "two", "afterEach", "beforeEach", "afterEach"]));
  test("one", () => void order.push("one"));
  test("two", () => void order.push("two"));
  test("a timeout as the third argument", async () => {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }, 2_000);
});

describe.each([
  [1, "one"],
  [2, "two"],
])("each row %d is %s", (number, word) => {
  test("spreads its values", () => {
    expect(typeof number).toBe("number");
    expect(word).toBe(number === 1 ? "one" : "two");
  });
});

test.each(["a", "b"])("each value %p", (letter) => {
  expect(["a", "b"]).toContain(letter);
});

describe("Bun's extra matchers", () => {
  test("pass", () => {
    expect("https://example.com").toStartWith("https://");
    expect("file.ts").toEndWith(".ts");
    expect("abc").not.toStartWith("b");
    expect("x").toBeString();
    expect(1).toBeNumber();
    expect("1").not.toBeNumber();
    expect(true).toBeTrue();
    expect(0).not.toBeFalse();
    expect([]).toBeArray();
    expect("abc").toInclude("b");
    expect(2).toBeOneOf([1, 2]);
    expect(() => 1).toBeTypeOf("function");
  });

  test("fail with Bun's words", () => {
    expect(() => expect("abc").toStartWith("x")).toThrow('Expected to start with: "x"');
    expect(() => expect("abc").toEndWith("x")).toThrow('Expected to end with: "x"');
    expect(() => expect(1).toBeString()).toThrow("Received: 1");
    expect(() => expect("abc").not.toStartWith("a")).toThrow("not.toStartWith");
  });
});

test("a message as expect's second argument heads its failure", () => {
  expect(() => expect(1, "the answer").toBe(2)).toThrow("the answer");
  expect(() => expect(1, "the answer").not.toBe(1)).toThrow("the answer");
  expect(1, "the answer").toBe(1);
});

describe("spies and mocks", () => {
  test("mock records its calls", () => {
    const double = mock((n: number) => n * 2);
    expect(double(2)).toBe(4);
    expect(double).toHaveBeenCalledTimes(1);
    expect(double.mock.calls).toEqual([[2]]);
  });

  test("spyOn replaces a method until mockRestore", () => {
    const target = { greet: (name: string) => `hello ${name}` };
    const spy = spyOn(target, "greet").mockImplementation(() => "hi");
    expect(target.greet("bob")).toBe("hi");
    expect(spy).toHaveBeenCalled();
    spy.mockRestore();
    expect(target.greet("bob")).toBe("hello bob");
  });
});

test("RUNTIME names the runtime that runs the tests", () => {
  expect(RUNTIME).toBe("Deno" in globalThis ? "deno" : "bun");
});
