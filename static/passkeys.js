/*
 * Passkeys on the sign-in, two-step and account pages. Progressive: the forms stay hidden unless
 * the browser supports WebAuthn, and the pages work with a password without this script.
 *
 * The form #passkey-form carries the CSRF token and, in data-options, the URL that answers with
 * the ceremony's options (a fresh single-use challenge). The browser's answer goes back in the
 * form's hidden `response` field by an ordinary form submission, so the server's redirects (to the
 * application, or the account page) are followed as after a password.
 *
 * data-mode: "register" (startRegistration), else authentication; data-autofill="true" also
 * offers passkeys in the username field's autofill (conditional mediation, WebAuthn §5.1.4.1).
 * Only the [data-passkey-start] button starts a ceremony: another submit button of the form (the
 * password reset page's, with a code instead) sends it as it is.
 *
 * Its words come from the page, translated (views/passkey_status.eta puts them on #passkey-status
 * as data-* attributes): what a browser's exception says ("127.0.0.1 is an invalid domain") is
 * never shown. The options endpoint's own refusals (`error` in words, translated by the server)
 * are; any other failure to get the options is the page's "could not be started".
 */
(function () {
  "use strict";
  var lib = window.SimpleWebAuthnBrowser;
  var form = document.getElementById("passkey-form");
  if (!form || !lib || !lib.browserSupportsWebAuthn()) return;
  var status = document.getElementById("passkey-status");
  var start = form.querySelector("[data-passkey-start]");
  var register = form.dataset.mode === "register";
  var busy = false;

  form.hidden = false;
  if (start) start.hidden = false;

  function say(text) {
    if (status) status.textContent = text;
  }

  /** One of the page's messages (views/passkey_status.eta) by its data-* name; "" when the page has not got it. */
  function message(name) {
    return (status && status.dataset[name]) || "";
  }

  /** A failure the page has words for, else its generic one. */
  function failure(name) {
    return message(name) || message("failed");
  }

  function field(name) {
    return form.elements.namedItem(name);
  }

  async function options() {
    var body = new URLSearchParams();
    ["csrf", "step", "password", "token"].forEach(function (name) {
      var input = field(name);
      if (input && "value" in input) body.set(name, input.value);
    });
    var answer = await fetch(form.dataset.options, {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: body,
    });
    var json = null;
    try {
      json = await answer.json();
    } catch (_e) {
      json = null;
    }
    if (!answer.ok || json === null) {
      // Words of ours (the account's options endpoint refuses in words) are shown; a protocol
      // error's description or a proxy's page are not.
      var said = json && typeof json.error === "string" && json.error.indexOf(" ") > 0 ? json.error : null;
      var refused = new Error("passkey options refused");
      refused.said = said || failure("notStarted");
      throw refused;
    }
    return json;
  }

  function send(result) {
    field("response").value = JSON.stringify(result);
    // The password (account page) only served to get the options: it is not sent again.
    var password = field("password");
    if (password) password.value = "";
    form.submit();
  }

  /** What to tell the person after `error`: never the exception's own text. */
  function words(error) {
    if (error && typeof error.said === "string") return error.said;
    if (error && error.name === "NotAllowedError") return failure("cancelled");
    if (error && error.name === "InvalidStateError") return failure("exists");
    return failure("failed");
  }

  async function run(autofill) {
    if (busy && !autofill) return;
    if (!autofill) {
      busy = true;
      say(message(register ? "workingAdd" : "workingUse"));
    }
    try {
      var optionsJSON = await options();
      var result = register ? await lib.startRegistration({ optionsJSON: optionsJSON }) : await lib.startAuthentication({ optionsJSON: optionsJSON, useBrowserAutofill: autofill });
      say(message(register ? "saving" : "signingIn"));
      send(result);
    } catch (error) {
      // The autofill request is cancelled when the button starts its own: nothing to say.
      if (autofill && error && error.name === "AbortError") return;
      if (!autofill || (error && error.name !== "NotAllowedError")) say(words(error));
    } finally {
      if (!autofill) busy = false;
    }
  }

  form.addEventListener("submit", function (event) {
    if (event.submitter && !event.submitter.hasAttribute("data-passkey-start")) return;
    event.preventDefault();
    if (!form.reportValidity()) return;
    run(false);
  });

  if (form.dataset.autofill === "true" && lib.browserSupportsWebAuthnAutofill) {
    lib.browserSupportsWebAuthnAutofill().then(function (supported) {
      if (supported) run(true);
    });
  }
})();
