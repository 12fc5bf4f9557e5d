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
    } catch (e) {
      json = null;
    }
    if (!answer.ok || json === null) {
      var message = json && (typeof json.error === "string" && json.error.indexOf(" ") > 0 ? json.error : json.error_description || json.message);
      throw new Error(message || "The passkey request could not be started. Reload the page and try again.");
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

  function words(error) {
    if (error && error.name === "NotAllowedError") return "The passkey request was cancelled or timed out. Try again when you are ready.";
    if (error && error.name === "InvalidStateError") return "This device already has a passkey for your account.";
    return (error && error.message) || "Something went wrong with the passkey. Try again.";
  }

  async function run(autofill) {
    if (busy && !autofill) return;
    if (!autofill) {
      busy = true;
      say(register ? "Follow your browser's instructions to create the passkey…" : "Follow your browser's instructions to use your passkey…");
    }
    try {
      var optionsJSON = await options();
      var result = register
        ? await lib.startRegistration({ optionsJSON: optionsJSON })
        : await lib.startAuthentication({ optionsJSON: optionsJSON, useBrowserAutofill: autofill });
      say(register ? "Saving your passkey…" : "Signing in…");
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
