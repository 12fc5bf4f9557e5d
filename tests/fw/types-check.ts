// Compile-time contract checks: this file must type-check (types.test.ts runs tsc on it).
// Each `@ts-expect-error` line proves the compiler rejects a misuse.
import { z } from "zod";
import { Fw } from "../../src/fw/index.ts";
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
