"""The API server's CEL authorizer library for admission policies (k8s.io/apiserver pkg/cel/library/authz.go):
`authorizer.group(g).resource(r).subresource(s).namespace(ns).name(n).check(verb)`, `authorizer.path(p)
.check(verb)`, `authorizer.serviceAccount(ns, name)`, `authorizer.requestResource`, and a decision's
`allowed()`, `reason()`, `errored()`, `error()`.

Offline there is no API server to ask: each value carries a handle to the `authorize` function the
caller registered (trainc.policy.rbac answers from the RBAC objects given with the inputs), and the user
the check is for. A check no one can answer is an error whose text starts with NOT_EVALUATED, for the
caller to report as such rather than as the policy's own error. Like Quantity and URL (celengine), the
values are maps with one marker key.
"""

from __future__ import annotations

import itertools

from ..errors import Record

_MARK = "@kubernetes.Authorizer"
NOT_EVALUATED = "authorizer check not evaluated"
SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"
_authorizers: dict = {}  # handle -> authorize(user, groups, Attributes) -> (allowed, reason, error)
_handles = itertools.count(1)


class Attributes(Record):
    """What a check asks (authorizer.AttributesRecord): a resource request, or a non-resource `path`."""

    verb: str
    group: str = ""
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    path: str | None = None


def register(authorize) -> int:
    """A handle for `authorize`, for `values`; `release` it when done."""
    handle = next(_handles)
    _authorizers[handle] = authorize
    return handle


def release(handle: int) -> None:
    _authorizers.pop(handle, None)


def service_account_groups(namespace: str) -> list[str]:
    """serviceaccount.MakeGroupNames."""
    return ["system:serviceaccounts", f"system:serviceaccounts:{namespace}"]


def impersonated(user: str, groups) -> tuple[str, tuple]:
    """The user info the API server makes of `kubectl --as USER --as-group GROUP ...` (its impersonation
    filter): a service account's groups when none are given, and system:authenticated for anyone but
    system:anonymous."""
    groups = list(dict.fromkeys(groups))
    if not groups and user.startswith(SERVICE_ACCOUNT_PREFIX):
        groups = service_account_groups(user[len(SERVICE_ACCOUNT_PREFIX) :].partition(":")[0])
    if user and user != "system:anonymous" and "system:authenticated" not in groups:
        groups.append("system:authenticated")
    return user, tuple(groups)


def values(handle: int, user: str, groups: list, request: dict) -> dict:
    """The `authorizer` and `authorizer.requestResource` variables of one admission request."""
    base = {_MARK: "authorizer", "handle": handle, "user": user, "groups": list(groups)}
    resource = request["resource"]
    return {
        "authorizer": base,
        "authorizer.requestResource": {
            **base,
            _MARK: "resource",
            "group": resource["group"],
            "resource": resource["resource"],
            "subresource": "",
            "namespace": request["namespace"],
            "name": request["name"],
        },
    }


def _of(value, *kinds: str) -> dict:
    if not (isinstance(value, dict) and value.get(_MARK) in kinds):
        raise TypeError("no such overload")
    return value


def _group(authorizer, group: str) -> dict:
    return {**_of(authorizer, "authorizer"), _MARK: "group", "group": group}


def _path(authorizer, path: str) -> dict:
    return {**_of(authorizer, "authorizer"), _MARK: "path", "path": path}


def _service_account(authorizer, namespace: str, name: str) -> dict:
    return {
        **_of(authorizer, "authorizer"),
        "user": f"{SERVICE_ACCOUNT_PREFIX}{namespace}:{name}",
        "groups": service_account_groups(namespace),
    }


def _resource(check, resource: str) -> dict:
    return {
        **_of(check, "group"),
        _MARK: "resource",
        "resource": resource,
        "subresource": "",
        "namespace": "",
        "name": "",
    }


def _setter(field: str):
    return lambda check, value: {**_of(check, "resource"), field: value}


def _selector(check, selector: str) -> dict:
    """fieldSelector / labelSelector: RBAC does not read selectors, so the check is the same."""
    return _of(check, "resource")


def _check(check, verb: str) -> dict:
    check = _of(check, "resource", "path")
    authorize = _authorizers.get(check["handle"])
    if authorize is None:  # a value kept past its admission run: nothing answers it
        raise ValueError(f"{NOT_EVALUATED}: no authorizer")
    if check[_MARK] == "path":
        attributes = Attributes(verb, path=check["path"])
    else:
        attributes = Attributes(
            verb, check["group"], check["resource"], check["subresource"], check["namespace"], check["name"]
        )
    allowed, reason, error = authorize(check["user"], list(check["groups"]), attributes)
    return {_MARK: "decision", "allowed": allowed, "reason": reason, "error": error}


def library():
    """The functions, as a cel extension over dynamically typed values."""
    from cel_expr_python import cel

    dyn, string, boolean = cel.Type.DYN, cel.Type.STRING, cel.Type.BOOL

    def member(name, impl, result, *arguments):
        return cel.FunctionDecl(
            name, [cel.Overload(f"k8s_authz_{name}", result, [dyn, *arguments], is_member=True, impl=impl)]
        )

    return cel.CelExtension(
        "kubernetes.authz",
        [
            member("group", _group, dyn, string),
            member("path", _path, dyn, string),
            member("serviceAccount", _service_account, dyn, string, string),
            member("resource", _resource, dyn, string),
            member("subresource", _setter("subresource"), dyn, string),
            member("namespace", _setter("namespace"), dyn, string),
            member("name", _setter("name"), dyn, string),
            member("fieldSelector", _selector, dyn, string),
            member("labelSelector", _selector, dyn, string),
            member("check", _check, dyn, string),
            member("allowed", lambda d: _of(d, "decision")["allowed"], boolean),
            member("reason", lambda d: _of(d, "decision")["reason"], string),
            member("errored", lambda d: bool(_of(d, "decision")["error"]), boolean),
            member("error", lambda d: _of(d, "decision")["error"], string),
        ],
    )
