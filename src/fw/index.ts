// Fw: a small typed endpoint framework on Bun.serve or Deno.serve. Knows nothing of OpenID.
import { App, build, parse_route, type FwConfig, type Item } from "./app.ts";
import type { AddressLookup, Context, Params, Query } from "./context.ts";
import type { CookieOptions, CookieReader } from "./cookies.ts";
import { Endpoint, EndpointBase } from "./endpoint.ts";
import * as errors from "./errors.ts";
import { ErrorHandler, Handler, LoggingHandler, RequestIdHandler, escape_html, log_unhandled } from "./handlers.ts";
import { negotiate } from "./negotiate.ts";
import { EmptyRequest, Request, snake_case, type RequestSource } from "./request.ts";
import { Bytes, Empty, FileDownload, Html, Json, Redirect, Stream, Text } from "./response.ts";
import { Router } from "./router/index.ts";
import { read_cookies } from "./runtime/cookies.ts";
import { claim_port, ListenError, PORT_SHARING, start, type Running } from "./runtime/serve.ts";
import { Renderable, ViewEngine, read_templates, view_locals } from "./views.ts";

export const Fw = {
  Endpoint,
  EndpointBase,
  Request,
  EmptyRequest,
  Response: { Json, Text, Html, Empty, Bytes, Redirect, Stream, FileDownload },
  Renderable,
  ViewEngine,
  read_templates,
  view_locals,
  Handler,
  ErrorHandler,
  LoggingHandler,
  RequestIdHandler,
  Router,
  App,
  build,
  start,
  claim_port,
  PORT_SHARING,
  ListenError,
  parse_route,
  negotiate,
  snake_case,
  escape_html,
  log_unhandled,
  read_cookies,
  ...errors,
} as const;

export type { AddressLookup, Context, CookieOptions, CookieReader, FwConfig, Item, Params, Query, RequestSource, Running };
export type { FieldIssue } from "./errors.ts";
export type { Next } from "./handlers.ts";
export { HttpError } from "./errors.ts";
export { ListenError } from "./runtime/serve.ts";
