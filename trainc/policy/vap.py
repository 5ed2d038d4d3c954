"""ValidatingAdmissionPolicy and its bindings, evaluated offline as the API server's admission plugin
(k8s.io/apiserver plugin/policy/validating, generic matching) evaluates them on CREATE, or on UPDATE when
the object has a previous version.

Per object and policy: matchConstraints (resourceRules, excludeResourceRules, namespaceSelector over the
inputs' Namespaces, objectSelector), then per binding its matchResources, its params (paramKind/paramRef),
matchConditions, variables and validations; a failed validation is acted on by the binding's
validationActions (Deny: an error; Warn: a warning; Audit: a notice). A CEL error or a configuration error
(no params under `parameterNotFoundAction: Deny`) denies under `failurePolicy: Fail` and is ignored under
`Ignore`. Messages are the API server's. Policy input the API server would refuse to store (an expression
that does not compile, a paramKind no input or built-in kind has, a binding to a missing policy) is an
error at its own place.

`request.userInfo` is the identity trainc admits as (`--as`, `--as-group`, the config's `as`, under the
Argo CD plugin its application controller); `authorizer` checks are answered by the RBAC objects among the
inputs and --policies (`rbac`). Without any, such a check is not evaluated: a notice at the expression says
so and what its failurePolicy makes of it, and the expression is skipped.
"""

from __future__ import annotations

import re

from .. import bounds
from ..errors import InputError, Notice, Origin, Record
from ..k8s import celauthz, celengine
from ..k8s.identity import Resources, group_version, is_policy
from . import house, rbac

POLICY, BINDING = "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"
NAMES = (
    "object",
    "oldObject",
    "request",
    "params",
    "namespaceObject",
    "variables",
    "authorizer",
    "authorizer.requestResource",
)
_ACTIONS = ("Deny", "Warn", "Audit")
_VARIABLES = re.compile(r"\bvariables\b")  # an expression without this word cannot read the policy's variables
_PARAMS = re.compile(r"\bparams\b")  # nor one without this word its params


class Subject(Record):
    """One object admitted: reported at `origin`/`path` (the TrainJob that rendered it, or itself)."""

    obj: dict
    origin: Origin | None
    path: tuple = ()
    old: dict | None = None
    cost: dict | None = None  # its TrainJob's cost (validation.cost.Cost.cel), with a price table


class Expression(Record):
    text: str
    program: object
    path: tuple = ()  # where it is written in its policy, for a notice about it
    variables: bool = True  # whether it names `variables` (one that does not cannot see them)


class Policy:
    """A ValidatingAdmissionPolicy, compiled. (It and Outcome are plain classes: a dataclass compiles its methods at
    every start of trainc, about half a millisecond each.)"""

    def __init__(self, origin: Origin, name: str, failure: str, param_kind: tuple | None, constraints: dict):
        self.origin, self.name, self.failure = origin, name, failure
        self.param_kind = param_kind  # (group, version, kind)
        self.constraints = constraints
        self.conditions: list = []  # [(name, Expression)]
        self.variables: list = []  # [(name, Expression)]
        self.validations: list = []  # [(rule dict, Expression, message Expression | None)]
        self.read: frozenset = frozenset()  # the variables a validation reads, itself or through others (`_read`)
        self.reads_params = False  # whether an expression of it may read `params` (names them)


class Binding(Record):
    origin: Origin
    name: str
    policy: Policy
    actions: tuple
    param_ref: dict | None
    match: dict | None


class _Bad(Exception):
    def __init__(self, path, message):
        super().__init__(message)
        self.path, self.message = path, message


def _get(node, path: tuple, kind, required=False, default=None):
    value = node
    for part in path:
        value = value.get(part) if isinstance(value, dict) else None
    if value is None:
        if required:
            raise _Bad(path, "required field is missing")
        return default
    if not isinstance(value, kind):
        raise _Bad(path, f"must be {'a string' if kind is str else 'a list' if kind is list else 'an object'}")
    return value


def _compile(text, path) -> Expression:
    bounds.supervise()  # the repository's own program, in native code: under the supervisor from here
    try:
        return Expression(text, celengine.compile(text, NAMES), path, _VARIABLES.search(text) is not None)
    except celengine.CompileError as exc:
        raise _Bad(path, f"compilation failed: {exc}") from None


def _policy(origin: Origin, obj: dict, known_kind) -> Policy:
    name = _get(obj, ("metadata", "name"), str, required=True)
    failure = _get(obj, ("spec", "failurePolicy"), str, default="Fail")
    if failure not in ("Fail", "Ignore"):
        raise _Bad(("spec", "failurePolicy"), f'unsupported value "{failure}": must be one of "Fail", "Ignore"')
    param_kind = None
    if _get(obj, ("spec", "paramKind"), dict) is not None:
        api_version = _get(obj, ("spec", "paramKind", "apiVersion"), str, required=True)
        kind = _get(obj, ("spec", "paramKind", "kind"), str, required=True)
        group, version = group_version(api_version)
        if not known_kind(group, kind):
            raise _Bad(
                ("spec", "paramKind"),
                f"failed to find resource referenced by paramKind: '{api_version}, "
                f"Kind={kind}': no such kind among the inputs, --policies or "
                "Kubernetes' built-in kinds",
            )
        param_kind = (group, version, kind)
    constraints = _get(obj, ("spec", "matchConstraints"), dict, required=True)
    _get(obj, ("spec", "matchConstraints", "resourceRules"), list, required=True)
    policy = Policy(origin, name, failure, param_kind, constraints)
    for index, item in enumerate(_get(obj, ("spec", "matchConditions"), list, default=[])):
        where = ("spec", "matchConditions", index)
        policy.conditions.append(
            (
                _get(item, ("name",), str, required=True),
                _compile(_get(item, ("expression",), str, required=True), (*where, "expression")),
            )
        )
    for index, item in enumerate(_get(obj, ("spec", "variables"), list, default=[])):
        where = ("spec", "variables", index)
        policy.variables.append(
            (
                _get(item, ("name",), str, required=True),
                _compile(_get(item, ("expression",), str, required=True), (*where, "expression")),
            )
        )
    validations = _get(obj, ("spec", "validations"), list, default=[])
    if not validations:
        raise _Bad(
            ("spec", "validations"),
            "at least one of validations or auditAnnotations is required (trainc evaluates validations only)",
        )
    for index, item in enumerate(validations):
        where = ("spec", "validations", index)
        if not isinstance(item, dict):
            raise _Bad(where, "must be an object")
        expression = _compile(_get(item, ("expression",), str, required=True), (*where, "expression"))
        message = _get(item, ("messageExpression",), str)
        policy.validations.append(
            (item, expression, None if message is None else _compile(message, (*where, "messageExpression")))
        )
    policy.read = _read(policy)
    policy.reads_params = any(
        _PARAMS.search(expression.text)
        for expression in (
            *(expression for _, expression in (*policy.conditions, *policy.variables)),
            *(each for _, expression, message in policy.validations for each in (expression, message) if each),
        )
    )
    return policy


def _read(policy: Policy) -> frozenset:
    """The variables the policy's validations read, directly or through the variables they read: upstream's
    variables are lazy (composition.go's `lazy.NewMapValue`), evaluated and charged on first access only, so one
    no validation reads is never evaluated (nor its error seen). An expression reading `variables` other than as
    `variables.NAME` reads them all."""
    names = [name for name, _ in policy.variables]
    texts = [text for _, expression, message in policy.validations for text in (expression, message) if text]
    read, pending = set(), [text.text for text in texts]
    while pending:
        text = pending.pop()
        if len(_VARIABLES.findall(text)) != len(_NAMED_VARIABLE.findall(text)):
            return frozenset(names)
        for name, expression in policy.variables:
            if name not in read and _reads(text, name):
                read.add(name)
                pending.append(expression.text)
    return frozenset(read)


def _binding(origin: Origin, obj: dict, policies: dict) -> Binding:
    name = _get(obj, ("metadata", "name"), str, required=True)
    policy_name = _get(obj, ("spec", "policyName"), str, required=True)
    policy = policies.get(policy_name)
    if policy is None:
        raise _Bad(
            ("spec", "policyName"), f"no ValidatingAdmissionPolicy {policy_name!r} among the inputs or --policies"
        )
    actions = _get(obj, ("spec", "validationActions"), list, required=True)
    if not actions or any(action not in _ACTIONS for action in actions):
        raise _Bad(("spec", "validationActions"), 'must be one or more of "Deny", "Warn", "Audit"')
    if "Deny" in actions and "Warn" in actions:
        raise _Bad(("spec", "validationActions"), "Deny and Warn may not be used together")
    param_ref = _get(obj, ("spec", "paramRef"), dict)
    if policy.param_kind is not None and param_ref is None:
        raise _Bad(
            ("spec", "paramRef"),
            f"ValidatingAdmissionPolicy {policy.name!r} has a paramKind: the binding needs a paramRef",
        )
    return Binding(
        origin, name, policy, tuple(dict.fromkeys(actions)), param_ref, _get(obj, ("spec", "matchResources"), dict)
    )


def load(documents, others) -> tuple[list[Binding], list[InputError]]:
    """The bindings (with their policies) among `documents` ((origin, object) pairs), in name order;
    `others` are every object of the run, whose kinds a paramKind may name."""
    errors, policies, bindings, broken = [], {}, [], set()  # broken: policies reported already
    resources = Resources(obj for _, obj in others)
    kinds = {(group_version(obj.get("apiVersion") or "")[0], obj.get("kind")) for _, obj in others}

    def known_kind(group, kind):
        return resources.knows(group, kind) or (group, kind) in kinds

    found = [(origin, obj) for origin, obj in documents if is_policy(obj)]
    for origin, obj in found:
        if obj["kind"] == POLICY:
            try:
                policy = _policy(origin, obj, known_kind)
            except _Bad as bad:
                errors.append(InputError(origin, bad.path, bad.message))
                broken.add((obj.get("metadata") or {}).get("name"))
                continue
            policies.setdefault(policy.name, policy)
    for origin, obj in found:
        if obj["kind"] == BINDING and (obj.get("spec") or {}).get("policyName") not in broken:
            try:
                bindings.append(_binding(origin, obj, policies))
            except _Bad as bad:
                errors.append(InputError(origin, bad.path, bad.message))
    return sorted(bindings, key=lambda b: (b.policy.name, b.name)), errors


# --- matching (generic/matching.go and the webhook rule matcher)


def _selects(selector, labels: dict) -> bool:
    """A metav1.LabelSelector; absent or empty selects everything."""
    if not isinstance(selector, dict):
        return True
    if any(labels.get(key) != value for key, value in (selector.get("matchLabels") or {}).items()):
        return False
    for expression in selector.get("matchExpressions") or ():
        key, operator, values = expression.get("key"), expression.get("operator"), expression.get("values") or ()
        present = key in labels
        allowed = {
            "In": present and labels.get(key) in values,
            "NotIn": not present or labels.get(key) not in values,
            "Exists": present,
            "DoesNotExist": not present,
        }.get(operator, False)
        if not allowed:
            return False
    return True


def _listed(values, value) -> bool:
    return values is None or "*" in values or value in values


def _rule_matches(rule: dict, request: dict, operation: str) -> bool:
    if not (
        _listed(rule.get("operations"), operation)
        and _listed(rule.get("apiGroups"), request["kind"]["group"])
        and _listed(rule.get("apiVersions"), request["kind"]["version"])
    ):
        return False
    resources = rule.get("resources") or ()
    resource = request["resource"]["resource"]
    if not any(item in ("*", "*/*", resource) for item in resources):
        return False
    scope = rule.get("scope") or "*"
    cluster = request["namespace"] == ""
    if scope == "Cluster" and not cluster or scope == "Namespaced" and cluster:
        return False
    names = rule.get("resourceNames")
    return not names or request["name"] in names


def _takes(criteria: dict, request: dict, namespace_labels: dict | None, operation: str, any_rule: bool) -> bool:
    """Whether `criteria` (matchConstraints or a binding's matchResources) take the request, the object's labels
    aside (`Admission._match`); `any_rule`: no resourceRules means every resource (a binding's matchResources)."""
    if namespace_labels is not None and not _selects(criteria.get("namespaceSelector"), namespace_labels):
        return False
    if any(_rule_matches(rule, request, operation) for rule in criteria.get("excludeResourceRules") or ()):
        return False
    rules = criteria.get("resourceRules") or ()
    return (any_rule and not rules) or any(_rule_matches(rule, request, operation) for rule in rules)


def _named(criteria: dict | None) -> bool:
    """Whether a rule of `criteria` names the objects it takes (resourceNames)."""
    rules = (*(criteria.get("resourceRules") or ()), *(criteria.get("excludeResourceRules") or ())) if criteria else ()
    return any(isinstance(rule, dict) and rule.get("resourceNames") for rule in rules)


# --- evaluation (validating/validator.go, dispatcher.go)


class Outcome:
    """The errors and notices of an admission."""

    def __init__(self):
        self.errors: list = []
        self.notices: list = []


RUNTIME_CEL_COST_BUDGET = 10_000_000  # k8s.io/apiserver/pkg/apis/cel/config.go RuntimeCELCostBudget
OUT_OF_BUDGET = "validation failed due to running out of cost budget, no further validation rules will be run"


class _OutOfBudget(Exception):
    """A policy's evaluation for one object spent RUNTIME_CEL_COST_BUDGET (validator.go)."""


class _Config(Exception):
    """A binding that cannot be evaluated (no params): a configuration error, under failurePolicy."""


class Admission:
    def __init__(self, bindings: list[Binding], objects: list, namespace: str, rules=(), user=("", ())):
        self.bindings, self.default_namespace, self.rules = bindings, namespace, rules
        self.user, self.groups = user[0], list(user[1])
        self._taken: dict = {}  # `_match`'s verdicts on what objects alike share
        self._named: dict = {}  # id(criteria) -> whether a rule of them gives resourceNames
        criteria = [c for b in bindings for c in (b.policy.constraints, b.match) if c is not None]
        self._by_labels = any(isinstance(c, dict) and c.get("objectSelector") for c in criteria)
        self._by_name = any(_named(c) for c in criteria)
        self._matches: dict = {}  # `_matched`'s answers, by what they depend on
        self.authorizer = celauthz.register(rbac.RBAC(objects, namespace).authorize)
        self.unevaluated: dict = {}  # (policy, expression path) -> (Policy, Expression): said once each
        self.current = ""  # the object being admitted, for the run bound's message
        self.given = {}  # the variables trainc gives the object's policies (`cost`); a policy's own of a name wins
        self.resources = Resources(objects)
        self.namespaces = {}
        self._namespace_objects: dict = {}  # name -> `_namespace_object`'s answer
        self.params: dict = {}  # (group, kind) -> [objects]
        self._placed: dict = {}  # (group, kind) -> `_by_place` of its objects, made when a binding first asks
        for obj in objects:
            kind = obj.get("kind")
            group = group_version(obj.get("apiVersion") or "")[0]
            self.params.setdefault((group, kind), []).append(obj)
            if kind == "Namespace" and group == "":
                self.namespaces.setdefault((obj.get("metadata") or {}).get("name"), obj)

    def _namespace_object(self, name: str) -> dict:
        """The Namespace `name` as policies read it (`namespaceObject`), the same object for every request in it:
        no evaluation changes it."""
        made = self._namespace_objects.get(name)
        if made is None:
            made = self._namespace_objects[name] = self._made_namespace(name)
        return made

    def _made_namespace(self, name: str) -> dict:
        found = self.namespaces.get(name)
        if found is None:  # not among the inputs: the Namespace the API server would create, as it labels it
            found = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
        labels = dict(found.get("metadata", {}).get("labels") or {})
        labels.setdefault("kubernetes.io/metadata.name", name)
        return {**found, "metadata": {**found.get("metadata", {}), "labels": labels}}

    def admit(self, subject: Subject, outcome: Outcome) -> None:
        obj = subject.obj
        group, version = group_version(obj.get("apiVersion") or "")
        kind = obj.get("kind") or ""
        resource, cluster = self.resources.of(group, kind)
        metadata = obj.get("metadata") or {}
        namespace = "" if cluster else metadata.get("namespace") or self.default_namespace
        name = metadata.get("name") or ""
        operation = "CREATE" if subject.old is None else "UPDATE"
        request = {
            "kind": {"group": group, "version": version, "kind": kind},
            "resource": {"group": group, "version": version, "resource": resource},
            "name": name,
            "namespace": namespace,
            "operation": operation,
            "userInfo": {"username": self.user, "groups": self.groups},
            "dryRun": False,
        }
        labels = metadata.get("labels") or {}
        if subject.old is not None and not labels:
            labels = (subject.old.get("metadata") or {}).get("labels") or {}
        namespace_object = self._namespace_object(namespace) if namespace else None
        if kind == "Namespace" and group == "":  # a Namespace is selected by its own labels
            namespace_object, namespace_labels = None, self._namespace_object(name)["metadata"]["labels"]
        else:
            namespace_labels = namespace_object["metadata"]["labels"] if namespace_object else None
        if not cluster and not metadata.get("namespace"):  # as the API server stores it
            obj = {**obj, "metadata": {**metadata, "namespace": namespace}}
        label = f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"
        self.current = label
        self.given = {} if subject.cost is None else {"cost": subject.cost}
        # what `_takes` reads of the request but for names: the scope's labels are its Namespace's, or a Namespace's own
        scope = name if kind == "Namespace" and group == "" else namespace
        alike = (group, version, resource, kind, namespace, scope, operation)
        matched = self._matched(alike, request, labels, namespace_labels)
        # Converting the object to CEL values is most of an evaluation: one binding of the request's data serves the
        # house rules and every policy that reads the same params (or none), each other params object its own. It
        # holds the first params object, unless a policy without params names `params` (null to it).
        naming = any(params == [None] and binding.policy.reads_params for binding, params in matched)
        chosen = (
            None if naming else next((params[0] for _, params in matched if isinstance(params, list) and params), None)
        )
        if not (matched or self.rules):
            return
        data = {  # what every policy reads besides its params and variables
            "object": obj,
            "oldObject": subject.old,
            "request": request,
            "namespaceObject": namespace_object,
            **celauthz.values(self.authorizer, self.user, self.groups, request),
        }
        shared: list = []

        def bound():
            if not shared:
                given = {"params": chosen, "variables": dict(self.given), "cost": subject.cost or {}}
                shared.append(celengine.bind({**data, **given}))
            return shared[0]

        if self.rules:
            house.check(self.rules, obj, namespace, label, subject.origin, subject.path, outcome.errors, bound)
        for binding, params in matched:
            policy = binding.policy
            if isinstance(params, _Config):
                if policy.failure == "Fail":
                    self._act(binding, ["Deny"], f"failed to configure binding: {params}", subject, label, outcome)
                continue
            for param in params:
                together = param is chosen or not policy.reads_params
                for message in self._validate(policy, {**data, "params": param}, bound() if together else None):
                    self._act(binding, binding.actions, message, subject, label, outcome)

    def _matched(self, alike: tuple, request: dict, labels: dict, namespace_labels) -> list:
        """[(binding, its params or why it has none)] of the bindings that take the request, in binding order: the
        same for every object `alike` (and of its name, when a rule names objects) unless an objectSelector reads
        its labels, so found once for them (a render admits thousands of JobSets alike)."""
        if self._by_labels:
            return self._matching(alike, request, labels, namespace_labels)
        key = (*alike, request["name"] if self._by_name else None)
        found = self._matches.get(key)
        if found is None:
            found = self._matches[key] = self._matching(alike, request, labels, namespace_labels)
        return found

    def _matching(self, alike: tuple, request: dict, labels: dict, namespace_labels) -> list:
        matched = []
        for binding in self.bindings:
            if not (
                self._match(binding.policy.constraints, alike, request, labels, namespace_labels, False)
                and self._match(binding.match, alike, request, labels, namespace_labels, True)
            ):
                continue
            try:
                matched.append((binding, self._params(binding, alike[4])))
            except _Config as exc:
                matched.append((binding, exc))
        return matched

    def _match(self, criteria, alike: tuple, request: dict, labels: dict, namespace_labels, any_rule: bool) -> bool:
        """Whether `criteria` take the request: the objectSelector on `labels`, the rest (`_takes`) kept for the next
        object `alike`, as an admission asks it of every rendered object for every binding."""
        if criteria is None:
            return True
        if not _selects(criteria.get("objectSelector"), labels):
            return False
        named = self._named.get(id(criteria))
        if named is None:
            named = self._named[id(criteria)] = _named(criteria)
        key = (id(criteria), any_rule, *alike, request["name"] if named else None)
        found = self._taken.get(key)
        if found is None:
            found = self._taken[key] = _takes(criteria, request, namespace_labels, request["operation"], any_rule)
        return found

    def _params(self, binding: Binding, namespace: str) -> list:
        """The params the binding evaluates with ([None] without paramKind), as generic.CollectParams."""
        if binding.policy.param_kind is None:
            return [None]
        group, _, kind = binding.policy.param_kind
        ref = binding.param_ref
        _, cluster = self.resources.of(group, kind)
        where = None if cluster else ref.get("namespace") or namespace
        if where == "":
            raise _Config("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources")
        name = ref.get("name")
        placed = self._placed.get((group, kind))
        if placed is None:
            placed = self._placed[(group, kind)] = self._by_place(self.params.get((group, kind), ()))
        if not all(part is None or isinstance(part, str) for part in (where, name)):
            found = []  # every candidate's namespace and name are strings: nothing else is theirs
        elif name is not None:
            found = list(placed.get((where, name), ()))
        else:
            selector = ref.get("selector")
            found = [
                candidate
                for candidate in placed.get((where, None), ())
                if _selects(selector, (candidate.get("metadata") or {}).get("labels") or {})
            ]
        if not found and ref.get("parameterNotFoundAction", "Deny") == "Deny":
            raise _Config("no params found for policy binding with `Deny` parameterNotFoundAction")
        return found

    def _by_place(self, candidates) -> dict:
        """{(namespace or None for any, name or None for any): [candidate, ...] in input order}: a paramRef's params
        found at once, as every admitted object asks them (a repository passes thousands of ConfigMaps through)."""
        placed: dict = {}
        for candidate in candidates:
            metadata = candidate.get("metadata") or {}
            there, name = metadata.get("namespace") or self.default_namespace, metadata.get("name")
            # a namespace or name of another type matches no paramRef's: it is under "any" alone
            for where in (None, there) if isinstance(there, str) else (None,):
                for called in (None, name) if isinstance(name, str) else (None,):
                    placed.setdefault((where, called), []).append(candidate)
        return placed

    def _validate(self, policy: Policy, data: dict, bound=None) -> list[str]:
        """The messages of the validations that refuse (or fail, under failurePolicy Fail); `bound`: `data` with
        the variables trainc gives (none of the policy's yet), bound already. Every expression's cost is taken from
        one budget per policy and object (validator.go's RuntimeCELCostBudget); past it, nothing more is evaluated."""
        budget = [RUNTIME_CEL_COST_BUDGET]
        bounds.doing(f"ValidatingAdmissionPolicy '{policy.name}' on {self.current}")  # every expression's, here

        def run(expression: Expression, over):
            try:
                return celengine.evaluate(expression.program, over)
            finally:
                budget[0] -= celengine.cost()
                if budget[0] < 0:
                    raise _OutOfBudget()

        try:
            return self._validations(policy, data, bound, run)
        except _OutOfBudget:
            return [OUT_OF_BUDGET] if policy.failure == "Fail" else []

    def _validations(self, policy: Policy, data: dict, bound, run) -> list[str]:
        errors = []
        if bound is None:
            bound = celengine.bind({**data, "variables": dict(self.given)})
        for _, condition in policy.conditions:
            try:
                if run(condition, bound) is False:
                    return []
            except celengine.EvalError as exc:
                if self._unanswered(policy, condition, exc):
                    return []
                errors.append(celengine.failure(condition.text, exc))
        if errors:
            return errors if policy.failure == "Fail" else []
        # Each variable a validation reads (`Policy.read`) is evaluated once and sees those before it; a failed one
        # fails its readers; one no validation reads is not evaluated, as upstream's lazy variables are not. `variables` holds
        # trainc's (`cost`) already, or a policy's own of that name. Converting the object to CEL values is most of
        # an evaluation, so it is bound again only for an expression that names `variables`, and only once the
        # policy's variables have changed since (`current`): every other expression reads `bound`.
        variables, failed, current = dict(self.given), {}, [bound]

        def over(expression: Expression):
            if not expression.variables:
                return bound
            if current[0] is None:
                current[0] = celengine.bind({**data, "variables": dict(variables)})
            return current[0]

        for name, expression in policy.variables:
            if name not in policy.read:
                continue
            before = [failed[other] for other in failed if _reads(expression.text, other)]
            if before:
                failed[name] = before[0]
                continue
            try:
                variables[name] = run(expression, over(expression))
                current[0] = None
            except celengine.EvalError as exc:
                failed[name] = celengine.failure(expression.text, exc)
        messages = []
        for rule, expression, message_expression in policy.validations:
            used = [failed[name] for name in failed if _reads(expression.text, name)]
            try:
                if used:
                    raise celengine.EvalError(used[0])
                allowed = run(expression, over(expression))
            except celengine.EvalError as exc:
                if self._unanswered(policy, expression, exc):
                    continue
                if policy.failure == "Fail":
                    messages.append(str(exc) if used else celengine.failure(expression.text, exc))
                continue
            if allowed is True:
                continue
            shown = None if message_expression is None else over(message_expression)
            messages.append(_message(rule, expression, message_expression, shown))
        return messages

    def _unanswered(self, policy: Policy, expression: Expression, error: celengine.EvalError) -> bool:
        """Whether `error` is an authorizer check no RBAC object can answer (then noted once, not acted on)."""
        if celauthz.NOT_EVALUATED not in str(error):
            return False
        self.unevaluated.setdefault((policy.name, expression.path), (policy, expression))
        return True

    def unanswered(self) -> list[tuple]:
        """The (policy, expression path) of each authorizer check not evaluated so far, for `unanswered_too`."""
        return list(self.unevaluated)

    def unanswered_too(self, keys) -> None:
        """Add the authorizer checks another process admitting for this one could not evaluate (`unanswered`)."""
        for name, path in keys:
            policy = next(binding.policy for binding in self.bindings if binding.policy.name == name)
            written = [*(e for _, e in policy.conditions), *(e for _, e, _ in policy.validations)]
            self.unevaluated.setdefault((name, path), (policy, next(e for e in written if e.path == path)))

    def notices(self) -> list[Notice]:
        """One notice per expression whose authorizer check was not evaluated, at the expression."""
        self.close()
        found = []
        for (name, path), (policy, expression) in sorted(self.unevaluated.items(), key=lambda item: item[0]):
            if policy.failure == "Fail":
                effect = (
                    "the cluster answers it, and under its failurePolicy Fail a check that errors there "
                    "denies the request"
                )
            else:
                effect = "its failurePolicy Ignore skips a check that errors, as here"
            found.append(
                Notice(
                    "notice",
                    policy.origin,
                    path,
                    f"ValidatingAdmissionPolicy '{name}': not evaluated: "
                    f"its authorizer check needs the RBAC objects (Roles, ClusterRoles and their "
                    f"bindings) among the inputs or --policies, and there are none; skipped here ("
                    f"{effect})",
                )
            )
        return found

    def close(self) -> None:
        celauthz.release(self.authorizer)

    def _act(self, binding: Binding, actions, message: str, subject: Subject, label: str, outcome: Outcome):
        policy = binding.policy.name
        for action in actions:
            if action == "Deny":
                outcome.errors.append(
                    InputError(
                        subject.origin,
                        subject.path,
                        f"{label}: ValidatingAdmissionPolicy "
                        f"'{policy}' with binding '{binding.name}' denied request: {message}",
                    )
                )
                continue
            if action == "Warn":
                severity, text = (
                    "warning",
                    (
                        f"{label}: Validation failed for ValidatingAdmissionPolicy '{policy}' "
                        f"with binding '{binding.name}': {message}"
                    ),
                )
            else:
                severity, text = (
                    "notice",
                    (
                        f"{label}: audit: ValidatingAdmissionPolicy '{policy}' with binding "
                        f"'{binding.name}': validation failed: {message}"
                    ),
                )
            outcome.notices.append(Notice(severity, subject.origin, (), text, at=subject.path))


_NAMED_VARIABLE = re.compile(r"\bvariables\.[A-Za-z_][A-Za-z0-9_]*")


def _reads(text: str, variable: str) -> bool:
    return re.search(rf"\bvariables\.{re.escape(variable)}\b", text) is not None


def _message(rule: dict, expression: Expression, message_expression: Expression | None, data) -> str:
    """The message expression's value when it is a non-empty single line, else the message, else
    `failed expression: EXPR` (validator.go's fallbackValidationMessage)."""
    if message_expression is not None:
        try:
            found = celengine.evaluate(message_expression.program, data)
        except celengine.EvalError:
            found = None
        if isinstance(found, str) and found.strip() and "\n" not in found:
            return found.strip()
    message = rule.get("message")
    if isinstance(message, str) and message.strip():
        return message.strip()
    return f"failed expression: {expression.text.strip()}"
