/**
 * Rows of `mail_outbox`: the column specs (codec.ts encodes and decodes by them) and the builder
 * that completes a new message, shared by both adapters so they store exactly the same defaults.
 */
import type { TableSpec } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import type { MailRow, MailSummary, NewMail } from "../types.ts";
import { uuid_v7 } from "../../platform/crypto.ts";

/** The columns of `mail_outbox`. */
export const mail_spec: TableSpec<MailRow> = {
  id: "text",
  recipient: "text",
  template: "text",
  subject: "text",
  text: "text",
  html: "text",
  status: "text",
  attempts: "int",
  next_attempt_at: "int",
  locked_until: "int",
  give_up_at: "int",
  last_error: "text",
  created_at: "int",
  sent_at: "int",
};

/** The outbox without the bodies (listings): they may hold single-use links. */
export const mail_summary_spec: TableSpec<MailSummary> = (({ text: _text, html: _html, ...rest }) => rest)(mail_spec);

/** The complete row of a new message: queued and due at once, or failed at once when `refused` says why. */
export function mail_row(input: NewMail): MailRow {
  const created_at = input.created_at ?? now_seconds();
  return {
    // Time-ordered: listings of one second stay newest first.
    id: input.id ?? uuid_v7(),
    recipient: input.recipient,
    template: input.template,
    subject: input.subject,
    text: input.text,
    html: input.html,
    status: input.refused === undefined ? "queued" : "failed",
    attempts: 0,
    next_attempt_at: input.next_attempt_at ?? created_at,
    locked_until: null,
    give_up_at: input.give_up_at,
    last_error: input.refused ?? null,
    created_at,
    sent_at: null,
  };
}
