"""How deep and how big a YAML document may be, decided the same with any PyYAML.

libyaml 0.2.6 (PyYAML 6.0.4's wheels) refuses nesting past 1000 levels in its
scanner; libyaml 0.2.5 (PyYAML 6.0.3's) and PyYAML's own scanner refuse none.
So trainc applies libyaml 0.2.6's rule itself, through PyYAML's scanner
(`Nesting`), whenever a document could be that deep: what is refused, and
where, does not depend on the installed libyaml. That scanner gives only this
verdict: everything else is libyaml's reading (`source.py`).
The rule counts scanner levels, not data levels (`[a: [b: ...]]` nests two data
levels per flow level), so data past MAX_DEPTH levels, syntax or aliases, is
refused too, as JSON and in-memory data are (`limits.py`).
"""

from __future__ import annotations

import yaml

from .limits import MAX_DEPTH, MAX_NODES

FRAMES_PER_LEVEL = 4  # Python frames a level of nesting takes in PyYAML's composer with `Nesting` mixed in
_TOO_DEEP = "exceeded maximum nesting depth"  # libyaml's words, with its context
_NESTED = f"nested deeper than {MAX_DEPTH} levels"  # the words of the JSON reader and of the Python API


class Nesting:
    """libyaml 0.2.6's limit in PyYAML's scanner, and MAX_DEPTH data levels in its (recursive) composer.

    libyaml counts a block collection when its indentation is rolled (refused at
    MAX_DEPTH), a flow collection when it opens (refused past MAX_DEPTH, block
    levels included), each at the indicator that raises the level.
    """

    levels = 0  # collections the composer is inside

    def add_indent(self, column):
        if self.indent < column and len(self.indents) + 1 >= MAX_DEPTH:
            raise _too_deep("while increasing block level", self.get_mark())
        return super().add_indent(column)

    def fetch_flow_collection_start(self, TokenClass):
        if len(self.indents) + self.flow_level + 1 > MAX_DEPTH:
            raise _too_deep("while increasing flow level", self.get_mark())
        return super().fetch_flow_collection_start(TokenClass)

    def compose_sequence_node(self, anchor):
        return self._compose_collection(super().compose_sequence_node, anchor)

    def compose_mapping_node(self, anchor):
        return self._compose_collection(super().compose_mapping_node, anchor)

    def _compose_collection(self, compose, anchor):
        if self.levels >= MAX_DEPTH:
            raise yaml.composer.ComposerError(None, None, _NESTED, self.peek_event().start_mark)
        self.levels += 1
        try:
            return compose(anchor)
        finally:
            self.levels -= 1


def _too_deep(context: str, mark) -> yaml.scanner.ScannerError:
    return yaml.scanner.ScannerError(context, mark, _TOO_DEEP, mark)


def is_too_deep(exc: yaml.YAMLError) -> bool:
    """Whether libyaml refused the nesting (a rule trainc re-applies with PyYAML's scanner)."""
    return getattr(exc, "problem", None) == _TOO_DEEP


def may_nest(text: str) -> bool:
    """Whether a document of `text` could nest MAX_DEPTH levels: cheap, and never wrong when it says no.

    Along any chain of collections, a flow collection takes a bracket (and holds
    at most one implicit pair mapping in the chain), and a block collection starts
    further right than its parent's, but for a sequence without indentation in
    a mapping: at most two levels per bracket and two per column.
    """
    brackets = text.count("[") + text.count("{")
    return 2 * (brackets + max(map(len, text.split("\n")))) >= MAX_DEPTH


def check_shape(root, recheck=None) -> None:
    """Refuse, in this order: nesting that libyaml 0.2.6 or the composer refuses (`recheck`, run
    when the document is MAX_DEPTH levels deep), a node holding an alias to itself or an ancestor,
    aliases expanding a node by more than MAX_NODES nodes (at the smallest node that is), and data
    nested past MAX_DEPTH levels.

    Only aliases count towards the expansion: a node reached a second time adds its whole size, a
    node reached the first time what aliases inside it add. So a large document without aliases is
    never taken for a bomb. Iterative and memoized on the node graph: one visit per distinct
    collection node, however deep the document or large its expansion.
    """
    sizes: dict[int, int] = {}
    added: dict[int, int] = {}  # nodes the aliases inside a node add
    heights: dict[int, int] = {}
    ancestors: set[int] = set()
    reached: set[int] = {id(root)}
    recursive = bomb = None
    stack: list = [(root, root.start_mark, None)]
    while stack:
        node, mark, children = stack.pop()
        if children is not None:  # every child is measured
            ancestors.discard(id(node))
            sizes[id(node)] = 1 + sum(sizes.get(id(child), 1) for child, _ in children)
            added[id(node)] = expansion = sum(
                sizes.get(id(child), 1) if again else added.get(id(child), 0) for child, again in children
            )
            heights[id(node)] = 1 + max((heights.get(id(child), 0) for child, _ in children), default=0)
            if expansion > MAX_NODES and bomb is None:
                bomb = node
        elif id(node) in ancestors:
            recursive = recursive or mark
        elif id(node) not in sizes and not isinstance(node, yaml.ScalarNode):
            pairs = _children(node)
            edges = []
            for child, _ in pairs:
                edges.append((child, id(child) in reached))
                reached.add(id(child))
            ancestors.add(id(node))
            stack.append((node, mark, edges))
            stack.extend((child, at, None) for child, at in pairs if not isinstance(child, yaml.ScalarNode))
    height = heights.get(id(root), 0)
    if height >= MAX_DEPTH and recheck is not None:
        recheck()
    if recursive:
        raise yaml.constructor.ConstructorError(None, None, "recursive alias: a node cannot contain itself", recursive)
    if bomb is not None:
        raise yaml.constructor.ConstructorError(
            None, None, f"aliases expand this node by more than {MAX_NODES} nodes (an alias bomb?)", bomb.start_mark
        )
    if height > MAX_DEPTH:
        node = root
        for _ in range(MAX_DEPTH):  # down the deepest chain, to the node at level MAX_DEPTH + 1
            height -= 1
            node = next(child for child, _ in _children(node) if heights.get(id(child), 0) == height)
        raise yaml.constructor.ConstructorError(None, None, _NESTED, node.start_mark)


def _children(node) -> list:
    """(child, where an alias to it would be reported) for each child of a collection node."""
    if isinstance(node, yaml.MappingNode):
        return [(child, key.start_mark) for key, value in node.value for child in (key, value)]
    return [(child, node.start_mark) for child in node.value]
