// Compile-time contract checks: this file must type-check (types.test.ts runs tsc on it).
// Each `@ts-expect-error` line proves the compiler rejects a misuse.
import { z } from "zod";
import { Fw, type CookieReader } from "../../src/fw/index.ts";
import type { EndpointBase } from "../../src/fw/endpoint.ts";
import type { SnakeCase } from "../../src/fw/request.ts";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const assert = <T extends true>(_: T) => {};

assert<Equal<SnakeCase<"CreateUserRequest">, "create_user_request">>(true);
assert<Equal<SnakeCase<"EmptyRequest">, "empty_request">>(true);

const CreateUserRequest = Fw.Request("CreateUserRequest", z.object({ name: z.string(), age: z.number().optional() }));

export class CreateUser extends Fw.Endpoint(CreateUserRequest, Fw.Response.Json) {
  static route = "POST /users";
  call() {
    const name: string = this.create_user_request.name;
    const age: number | undefined = this.create_user_request.age;
    // @ts-expect-error the contract has no `email` field
    this.create_user_request.email;
    // @ts-expect-error the property is named after the contract, nothing else
    this.user_request;
    return this.json({ name, age });
  }
}

export class WrongResponse extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
  static route = "GET /wrong";
  // @ts-expect-error call() must return the declared response type (Json), not Html
  call() {
    return this.html("<p>no</p>");
  }
}

export class AsyncOk extends Fw.Endpoint(Fw.EmptyRequest, [Fw.Response.Html, Fw.Response.Redirect]) {
  static route = "GET /async";
  async call() {
    return Math.random() > 0.5 ? this.html("<p>ok</p>") : this.redirect_to("/elsewhere", 303);
  }
}

// @ts-expect-error an endpoint class must implement call()
export class Missing extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
  static route = "GET /missing";
}

// The sources apart: the query (repeated keys as arrays, read-only), the route parameters, cookies.
assert<Equal<EndpointBase["query"], Readonly<Record<string, string | string[]>>>>(true);
assert<Equal<EndpointBase["route_params"], Record<string, string>>>(true);
assert<Equal<EndpointBase["cookies"], CookieReader>>(true);

export class Sources extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
  static route = "GET /sources/:id";
  call() {
    const id: string | undefined = this.route_params.id;
    // @ts-expect-error a query value may be an array (a repeated key)
    const q: string = this.query.q ?? "";
    // @ts-expect-error the query is read-only
    this.query.q = "x";
    this.set_cookie("a", "b", { sameSite: "strict", maxAge: 60, expires: new Date() });
    // @ts-expect-error sameSite is "strict", "lax" or "none"
    this.set_cookie("a", "b", { sameSite: "loose" });
    return this.json({ id, q });
  }
}

Fw.Request("BodyOnly", z.object({}), { from: ["body"] });
// @ts-expect-error `from` lists at least one source
Fw.Request("NoSource", z.object({}), { from: [] });
// @ts-expect-error a source is "path", "query" or "body"
Fw.Request("HeaderSource", z.object({}), { from: ["header"] });
