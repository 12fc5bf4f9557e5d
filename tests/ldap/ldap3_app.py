"""An application that signs its users in through LDAP, the way Gitea, Grafana or Nextcloud do,
written with python ldap3 (Debian's python3-ldap3): StartTLS, bind as its service account,
find the user by uid, bind as the user to check the password, read memberOf; then what else
such an application meets (a wrong password, a write, paged results, the root DSE without a
bind). Prints one JSON document for tests/ldap/ldap3.test.ts.

Usage: ldap3_app.py HOST PORT BASE SERVICE_DN SERVICE_PASSWORD USERNAME PASSWORD CA_FILE
"""
import json
import ssl
import sys

from ldap3 import ALL, SUBTREE, Connection, Server, Tls

host, port, base, service_dn, service_password, username, password, ca_file = sys.argv[1:9]
tls = Tls(ca_certs_file=ca_file, validate=ssl.CERT_REQUIRED)
server = Server(host, port=int(port), tls=tls, get_info=ALL)
out = {}

# The root DSE, read before any bind.
anonymous = Connection(server)
anonymous.open()
anonymous.search("", "(objectClass=*)", search_scope="BASE", attributes=["namingContexts", "supportedExtension", "supportedControl", "supportedLDAPVersion"])
dse = anonymous.entries[0].entry_attributes_as_dict if anonymous.entries else {}
out["root_dse"] = {key: [str(v) for v in values] for key, values in dse.items()}
anonymous.search(base, "(uid=*)", attributes=["uid"])
out["anonymous_search"] = anonymous.result["result"]
anonymous.unbind()

# 1. The application's own bind, over StartTLS.
app = Connection(server, service_dn, service_password)
app.open()
out["start_tls"] = app.start_tls()
out["service_bind"] = app.bind()
out["whoami"] = app.extend.standard.who_am_i()

# 2. Find the user who typed their username on the application's login form.
app.search(base, f"(&(objectClass=inetOrgPerson)(uid={username}))", SUBTREE, attributes=["uid", "cn", "mail", "memberOf", "entryUUID"])
found = [{"dn": e.entry_dn, "uid": [str(v) for v in e.uid], "mail": [str(v) for v in e.mail], "memberOf": [str(v) for v in e.memberOf], "entryUUID": str(e.entryUUID)} for e in app.entries]
out["found"] = found

# 3. Check the password: bind as the user, on a connection of its own.
if found:
    user = Connection(server, found[0]["dn"], password)
    user.open()
    user.start_tls()
    out["user_bind"] = user.bind()
    out["user_whoami"] = user.extend.standard.who_am_i()
    user.unbind()
    wrong = Connection(server, found[0]["dn"], password + "x")
    wrong.open()
    wrong.start_tls()
    out["wrong_bind"] = wrong.bind()
    out["wrong_result"] = wrong.result["result"]
    wrong.unbind()

# 4. Group membership, as applications map roles: the groups whose member is the user.
if found:
    app.search(f"ou=groups,{base}", f"(&(objectClass=groupOfNames)(member={found[0]['dn']}))", SUBTREE, attributes=["cn"])
    out["groups"] = sorted(str(e.cn) for e in app.entries)

# 5. A write is refused; paged results walk the whole directory.
app.add(f"uid=intruder,ou=people,{base}", ["inetOrgPerson"], {"cn": "x", "sn": "x"})
out["add_result"] = app.result["result"]
paged = list(app.extend.standard.paged_search(base, "(objectClass=*)", attributes=["1.1"], paged_size=2, generator=True))
out["paged_dns"] = [entry["dn"] for entry in paged if entry.get("type") == "searchResEntry"]
app.unbind()
print(json.dumps(out))
