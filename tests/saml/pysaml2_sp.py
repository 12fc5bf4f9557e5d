#!/usr/bin/python3
"""A SAML service provider built on pysaml2 (Debian's python3-pysaml2), driven by the tests.

It reads JSON commands on stdin, one a line, and prints one JSON answer a line on stdout (one
process serves a whole test file: importing pysaml2 takes seconds):

- {"op": "metadata"}: the SP's metadata XML, to register with `idp saml add`;
- {"op": "request", "binding": "redirect"|"post", "relay_state": str, "force_authn": bool,
   "is_passive": bool, "nameid_format": str|null, "sign": bool}: an AuthnRequest built by
   Saml2Client for our metadata: {"id", "url"} (HTTP-Redirect) or {"id", "action", "fields"}
   (HTTP-POST);
- {"op": "response", "saml_response": str, "outstanding": {id: url}|null}: pysaml2 parses and
   validates our Response (signature with the certificate of our metadata, audience, conditions,
   InResponseTo) and prints the subject, its attributes and the authentication statement, or
   {"error": "<exception class>: <message>"}.

- {"op": "logout_request", "binding", "name_id": {...}, "session_index": str|null, "sign": bool,
   "relay_state": str}: a LogoutRequest to our single logout service, as pysaml2 builds it:
   {"id", "url"} or {"id", "action", "fields"};
- {"op": "logout_response", "binding", "url"|"saml_response", "query": {...}}: pysaml2 reads our
  LogoutResponse (the XML signature checked on HTTP-POST; the query's signature with our
  certificate on HTTP-Redirect): {"in_response_to", "status", "issuer", "signature_ok"};
- {"op": "idp_logout_request", "binding", "saml_request", "query": {...}|null}: pysaml2 reads our
  LogoutRequest as an SP receiving it does: {"issuer", "name_id", "name_id_format",
  "session_index", "signature_ok"}, or {"error"}.

The configuration comes in the command's "config": entity_id, acs, idp_metadata (a file),
key_file, cert_file, authn_requests_signed, want_assertions_signed, want_response_signed,
allow_unsolicited, name_id_format, encryption_key_file and encryption_cert_file (its encryption key).
"""
import json
import re
import sys
import html

from saml2 import BINDING_HTTP_POST, BINDING_HTTP_REDIRECT
from saml2.client import Saml2Client
from saml2.config import SPConfig
from saml2.metadata import create_metadata_string
from saml2.saml import NAMEID_FORMAT_PERSISTENT, NameID
from saml2.sigver import verify_redirect_signature


def make_config(c):
    sp = {
        "endpoints": {
            "assertion_consumer_service": [(c["acs"], BINDING_HTTP_POST)],
            "single_logout_service": ([] if c.get("slo_post_only") else [(c["slo"], BINDING_HTTP_REDIRECT)]) + [(c["slo"], BINDING_HTTP_POST)] if c.get("slo") else [],
        },
        "authn_requests_signed": c.get("authn_requests_signed", False),
        "want_assertions_signed": c.get("want_assertions_signed", True),
        "want_response_signed": c.get("want_response_signed", False),
        "allow_unsolicited": c.get("allow_unsolicited", False),
        "name_id_format": c.get("name_id_format", NAMEID_FORMAT_PERSISTENT),
        "name_id_format_allow_create": True,
    }
    conf = {
        "entityid": c["entity_id"],
        "service": {"sp": sp},
        "key_file": c["key_file"],
        "cert_file": c["cert_file"],
        "xmlsec_binary": "/usr/bin/xmlsec1",
        "allow_unknown_attributes": True,
        "signing_algorithm": "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
        "digest_algorithm": "http://www.w3.org/2001/04/xmlenc#sha256",
        # Our clocks and pysaml2's are the same machine's.
        "accepted_time_diff": 5,
    }
    if c.get("encryption_key_file"):
        # Its encryption key (metadata KeyDescriptor use="encryption"): xmlsec1 decrypts our EncryptedAssertion with it.
        conf["encryption_keypairs"] = [{"key_file": c["encryption_key_file"], "cert_file": c["encryption_cert_file"]}]
    if c.get("idp_metadata"):
        conf["metadata"] = {"local": [c["idp_metadata"]]}
    config = SPConfig()
    config.load(conf)
    return config


def op_metadata(cmd):
    config = make_config(cmd["config"])
    xml = create_metadata_string(None, config=config, valid=24 * 365, sign=False)
    return {"metadata": xml.decode() if isinstance(xml, bytes) else xml}


def op_request(cmd):
    config = make_config(cmd["config"])
    client = Saml2Client(config)
    idp = list(client.metadata.identity_providers())[0]
    binding = BINDING_HTTP_REDIRECT if cmd["binding"] == "redirect" else BINDING_HTTP_POST
    kwargs = {}
    if cmd.get("force_authn"):
        kwargs["force_authn"] = "true"
    if cmd.get("is_passive"):
        kwargs["is_passive"] = "true"
    reqid, info = client.prepare_for_authenticate(
        entityid=idp,
        relay_state=cmd.get("relay_state", ""),
        binding=binding,
        nameid_format=cmd.get("nameid_format"),
        sign=cmd.get("sign", False),
        sigalg="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
        digest_alg="http://www.w3.org/2001/04/xmlenc#sha256",
        **kwargs,
    )
    if binding == BINDING_HTTP_REDIRECT:
        location = dict(info["headers"])["Location"]
        return {"id": reqid, "url": location}
    form = info["data"]
    action = html.unescape(re.search(r'action="([^"]*)"', form).group(1))
    fields = {html.unescape(n): html.unescape(v) for n, v in re.findall(r'<input type="hidden" name="([^"]*)" value="([^"]*)"', form)}
    return {"id": reqid, "action": action, "fields": fields}


def op_response(cmd):
    config = make_config(cmd["config"])
    client = Saml2Client(config)
    outstanding = cmd.get("outstanding") or {}
    try:
        response = client.parse_authn_request_response(cmd["saml_response"], BINDING_HTTP_POST, outstanding)
    except Exception as error:  # the test asserts on the kind of refusal
        return {"error": f"{type(error).__name__}: {error}"}
    if response is None:
        return {"error": "None: no response"}
    name_id = response.name_id
    statement = response.assertion.authn_statement[0]
    conditions = response.assertion.conditions
    confirmation = response.assertion.subject.subject_confirmation[0].subject_confirmation_data
    return {
        "issuer": response.issuer(),
        "in_response_to": response.in_response_to,
        "name_id": name_id.text,
        "name_id_format": name_id.format,
        "sp_name_qualifier": name_id.sp_name_qualifier,
        "attributes": response.ava,
        "session_index": statement.session_index,
        "authn_context": statement.authn_context.authn_context_class_ref.text,
        "audience": [a.text for r in conditions.audience_restriction for a in r.audience],
        "recipient": confirmation.recipient,
        "assertion_signed": response.assertion.signature is not None,
        "response_signed": response.response.signature is not None,
    }


SIGALG = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"
DIGEST = "http://www.w3.org/2001/04/xmlenc#sha256"


def form_of(info):
    form = info["data"]
    action = html.unescape(re.search(r'action="([^"]*)"', form).group(1))
    fields = {html.unescape(n): html.unescape(v) for n, v in re.findall(r'<input type="hidden" name="([^"]*)" value="([^"]*)"', form)}
    return action, fields


def op_logout_request(cmd):
    config = make_config(cmd["config"])
    client = Saml2Client(config)
    idp = list(client.metadata.identity_providers())[0]
    binding = BINDING_HTTP_REDIRECT if cmd["binding"] == "redirect" else BINDING_HTTP_POST
    destination = client.metadata.single_logout_service(idp, binding, "idpsso")[0]["location"]
    n = cmd["name_id"]
    name_id = NameID(text=n["value"], format=n["format"], name_qualifier=n.get("name_qualifier"), sp_name_qualifier=n.get("sp_name_qualifier"))
    sign = cmd.get("sign", True)
    reqid, request = client.create_logout_request(
        destination, idp, name_id=name_id, session_indexes=[cmd["session_index"]] if cmd.get("session_index") else None,
        sign=sign and binding == BINDING_HTTP_POST, sign_alg=SIGALG, digest_alg=DIGEST,
    )
    info = client.apply_binding(binding, str(request), destination, relay_state=cmd.get("relay_state", ""), sign=sign and binding == BINDING_HTTP_REDIRECT, sigalg=SIGALG)
    if binding == BINDING_HTTP_REDIRECT:
        return {"id": reqid, "url": dict(info["headers"])["Location"]}
    action, fields = form_of(info)
    return {"id": reqid, "action": action, "fields": fields}


def idp_certificate(client):
    idp = list(client.metadata.identity_providers())[0]
    # pem_format() does not wrap: the PEM reader wants 64-character lines.
    der = "".join(client.metadata.certs(idp, "idpsso", "signing")[0].split())
    return "\n".join(der[i : i + 64] for i in range(0, len(der), 64))


def redirect_signature_ok(client, query):
    if query is None:
        return None
    return verify_redirect_signature(query, client.sec.sec_backend, cert=idp_certificate(client))


def op_logout_response(cmd):
    config = make_config(cmd["config"])
    client = Saml2Client(config)
    binding = BINDING_HTTP_REDIRECT if cmd["binding"] == "redirect" else BINDING_HTTP_POST
    try:
        response = client.parse_logout_request_response(cmd["saml_response"], binding)
    except Exception as error:
        return {"error": f"{type(error).__name__}: {error}"}
    if response is None:
        return {"error": "None: no response"}
    return {
        "in_response_to": response.response.in_response_to,
        "status": response.response.status.status_code.value,
        "issuer": response.response.issuer.text,
        "destination": response.response.destination,
        "xml_signed": response.response.signature is not None,
        "signature_ok": redirect_signature_ok(client, cmd.get("query")),
    }


def op_idp_logout_request(cmd):
    config = make_config(cmd["config"])
    client = Saml2Client(config)
    binding = BINDING_HTTP_REDIRECT if cmd["binding"] == "redirect" else BINDING_HTTP_POST
    try:
        request = client.parse_logout_request(cmd["saml_request"], binding)
    except Exception as error:
        return {"error": f"{type(error).__name__}: {error}"}
    if request is None:
        return {"error": "None: no request"}
    message = request.message
    return {
        "issuer": message.issuer.text,
        "destination": message.destination,
        "name_id": message.name_id.text,
        "name_id_format": message.name_id.format,
        "session_index": [s.text for s in message.session_index],
        "xml_signed": message.signature is not None,
        "signature_ok": redirect_signature_ok(client, cmd.get("query")),
    }


def main():
    ops = {
        "metadata": op_metadata,
        "request": op_request,
        "response": op_response,
        "logout_request": op_logout_request,
        "logout_response": op_logout_response,
        "idp_logout_request": op_idp_logout_request,
    }
    for line in sys.stdin:
        if not line.strip():
            continue
        cmd = json.loads(line)
        try:
            answer = ops[cmd["op"]](cmd)
        except Exception as error:
            answer = {"failed": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
