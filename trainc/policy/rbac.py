"""Kubernetes' RBAC authorizer over the Roles, ClusterRoles and their bindings given with the inputs or
--policies, answering the `authorizer` checks of admission policies offline (celauthz).

As kubernetes plugin/pkg/auth/authorizer/rbac (RuleAllows, VerbMatches, APIGroupMatches, ResourceMatches,
ResourceNameMatches, NonResourceURLMatches) over pkg/registry/rbac/validation (VisitRulesFor, appliesTo,
describeSubject): ClusterRoleBindings first, then the RoleBindings of the request's namespace; the first
rule that allows decides, with the API server's reason `RBAC: allowed by ClusterRoleBinding "b" of
ClusterRole "r" to Group "g"`. A denied check has no reason. An aggregated ClusterRole has the rules of
the ClusterRoles its aggregationRule selects, as the aggregation controller gives it.
"""

from __future__ import annotations

from ..k8s import celauthz
from ..validation.kueue import selector_matches

GROUP = "rbac.authorization.k8s.io"
KINDS = ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding")
_ALL = "*"


def is_rbac(obj) -> bool:
    return (
        isinstance(obj, dict)
        and obj.get("kind") in KINDS
        and isinstance(obj.get("apiVersion"), str)
        and obj["apiVersion"].startswith(GROUP + "/")
    )


def _list(value) -> list:
    return value if isinstance(value, list) else []


def _map(value) -> dict:
    return value if isinstance(value, dict) else {}


class RBAC:
    """The RBAC objects of a run; false when there are none (no check can be answered)."""

    def __init__(self, objects, namespace: str):
        self.roles, self.cluster_roles, self.role_bindings, self.cluster_role_bindings = {}, {}, [], []
        for obj in sorted((o for o in objects if is_rbac(o)), key=lambda o: str(_map(o.get("metadata")).get("name"))):
            metadata = _map(obj.get("metadata"))
            name, where = metadata.get("name"), metadata.get("namespace") or namespace
            if obj["kind"] == "Role":
                self.roles.setdefault((where, name), obj)
            elif obj["kind"] == "ClusterRole":
                self.cluster_roles.setdefault(name, obj)
            elif obj["kind"] == "RoleBinding":
                self.role_bindings.append((where, obj))
            else:
                self.cluster_role_bindings.append(obj)

    def __bool__(self) -> bool:
        return bool(self.roles or self.cluster_roles or self.role_bindings or self.cluster_role_bindings)

    def authorize(self, user: str, groups: list, attributes: celauthz.Attributes) -> tuple[bool, str, str]:
        """(allowed, reason, error), as RBACAuthorizer.Authorize."""
        if not self:
            raise ValueError(
                f"{celauthz.NOT_EVALUATED}: no RBAC objects (Roles, ClusterRoles and their bindings) "
                "among the inputs or --policies to answer it"
            )
        for binding in self.cluster_role_bindings:
            found = self._allowing(binding, user, groups, "", attributes)
            if found is not None:
                return True, f'RBAC: allowed by ClusterRoleBinding "{_name(binding)}" of {found}', ""
        if attributes.namespace:
            for where, binding in self.role_bindings:
                if where == attributes.namespace:
                    found = self._allowing(binding, user, groups, where, attributes)
                    if found is not None:
                        return True, f'RBAC: allowed by RoleBinding "{_name(binding)}/{where}" of {found}', ""
        return False, "", ""

    def _allowing(self, binding: dict, user: str, groups: list, namespace: str, attributes) -> str | None:
        """`ROLEKIND "role" to SUBJECT` when the binding applies to the user and one of its role's rules
        allows the request, else None."""
        subject = next((s for s in _list(binding.get("subjects")) if _applies(_map(s), user, groups, namespace)), None)
        if subject is None:
            return None
        ref = _map(binding.get("roleRef"))
        kind, role = ref.get("kind"), ref.get("name")
        if kind == "Role" and namespace:
            rules = _list(_map(self.roles.get((namespace, role))).get("rules"))
        elif kind == "ClusterRole":
            rules = self._cluster_role_rules(role)
        else:
            return None
        if any(_rule_allows(_map(rule), attributes) for rule in rules):
            return f'{kind} "{role}" to {_describe(_map(subject), namespace)}'
        return None

    def _cluster_role_rules(self, name: str) -> list:
        role = _map(self.cluster_roles.get(name))
        aggregation = role.get("aggregationRule")
        if not isinstance(aggregation, dict):
            return _list(role.get("rules"))
        selectors = [_map(s) for s in _list(aggregation.get("clusterRoleSelectors"))]
        rules = []
        for other_name, other in self.cluster_roles.items():
            labels = _map(_map(other.get("metadata")).get("labels"))
            if other_name != name and any(selector_matches(s, labels) for s in selectors):
                rules.extend(rule for rule in _list(other.get("rules")) if rule not in rules)
        return rules


def _name(obj: dict) -> str:
    return str(_map(obj.get("metadata")).get("name"))


def _applies(subject: dict, user: str, groups: list, namespace: str) -> bool:
    kind, name = subject.get("kind"), subject.get("name")
    if kind == "User":
        return user == name
    if kind == "Group":
        return name in groups
    if kind == "ServiceAccount":
        where = subject.get("namespace") or namespace
        return bool(where) and user == f"{celauthz.SERVICE_ACCOUNT_PREFIX}{where}:{name}"
    return False


def _describe(subject: dict, namespace: str) -> str:
    kind, name = subject.get("kind"), subject.get("name")
    if kind == "ServiceAccount":
        return f'{kind} "{name}/{subject.get("namespace") or namespace}"'
    return f'{kind} "{name}"'


def _has(values, value: str) -> bool:
    values = _list(values)
    return _ALL in values or value in values


def _rule_allows(rule: dict, attributes: celauthz.Attributes) -> bool:
    if attributes.path is None:
        combined = f"{attributes.resource}/{attributes.subresource}" if attributes.subresource else attributes.resource
        return (
            _has(rule.get("verbs"), attributes.verb)
            and _has(rule.get("apiGroups"), attributes.group)
            and _resource_matches(_list(rule.get("resources")), combined, attributes.subresource)
            and (not _list(rule.get("resourceNames")) or attributes.name in _list(rule.get("resourceNames")))
        )
    return _has(rule.get("verbs"), attributes.verb) and any(
        url == _ALL or url == attributes.path or (url.endswith(_ALL) and attributes.path.startswith(url[:-1]))
        for url in _list(rule.get("nonResourceURLs"))
        if isinstance(url, str)
    )


def _resource_matches(resources: list, combined: str, subresource: str) -> bool:
    return any(
        item == _ALL or item == combined or (subresource and item == f"{_ALL}/{subresource}") for item in resources
    )
