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

The configuration comes in the command's "config": entity_id, acs, idp_metadata (a file),
key_file, cert_file, authn_requests_signed, want_assertions_signed, want_response_signed,
allow_unsolicited, name_id_format.
"""
import json
import re
import sys
import html

from saml2 import BINDING_HTTP_POST, BINDING_HTTP_REDIRECT
from saml2.client import Saml2Client
from saml2.config import SPConfig
from saml2.metadata import create_metadata_string
from saml2.saml import NAMEID_FORMAT_PERSISTENT


def make_config(c):
    sp = {
        "endpoints": {"assertion_consumer_service": [(c["acs"], BINDING_HTTP_POST)]},
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


def main():
    ops = {"metadata": op_metadata, "request": op_request, "response": op_response}
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
