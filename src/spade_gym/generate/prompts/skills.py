"""The skill catalogue: what each designed environment trains, with ideas to seed the designer.

Nine cognitive skills for games and six tool-use skills (SPADE's two settings). Names are
unique across both, so a skill names its kind of environment.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from spade_gym.contract import GAME_KIND, TOOL_USE_KIND


@dataclass(frozen=True)
class Skill:
    """A skill an environment trains, with ideas to seed the designer.

    ``kind`` says which kind of environment trains it: a game (single- or multi-turn ideas)
    or a tool-use environment (its ideas are in ``multi_turn_ideas``: a tool-use task always
    takes several calls).
    """

    name: str
    slug: str
    description: str
    single_turn_ideas: tuple[str, ...]
    multi_turn_ideas: tuple[str, ...]
    kind: str = GAME_KIND


def _skill(name: str, description: str, single: Sequence[str], multi: Sequence[str]) -> Skill:
    return Skill(name, slug_of(name), description, tuple(single), tuple(multi))


def _tool_skill(name: str, description: str, ideas: Sequence[str]) -> Skill:
    return Skill(name, slug_of(name), description, (), tuple(ideas), TOOL_USE_KIND)


def slug_of(name: str) -> str:
    """A skill name as a slug: lower case, words joined by underscores."""
    return re.sub(r"[\s_-]+", "_", name.strip().lower())


_CATALOG = (
    _skill(
        "Pattern Recognition",
        "finding the hidden rule behind sequences, grids, symbols or input-output examples",
        [
            "infer a string-rewriting rule from a handful of input -> output pairs and apply it "
            "to a new input",
            "continue a sequence built by interleaving two different recurrences",
            "decode a message under a keyed substitution cipher, given a few known word pairs",
            "predict the next frame of a small cellular grid from three earlier frames",
        ],
        [
            "code breaking: guess a hidden code, receive per-position feedback (right place / "
            "wrong place / absent) each turn",
            "probe a black-box function with inputs of your choice, then submit its formula",
            "a hidden tiling pattern revealed one cell per query; reveal as few cells as possible, "
            "then predict the rest",
        ],
    ),
    _skill(
        "Logical Deduction",
        "drawing certain conclusions from premises, constraints and eliminated possibilities",
        [
            "an ordering puzzle: positional clues with exactly one consistent arrangement",
            "truth-tellers and liars: decide who lies from what each one says about the others",
            "a grid logic puzzle (which person owns which item in which house) with a unique "
            "answer",
            "find the only switch setting that satisfies a set of boolean conditions",
        ],
        [
            "interactive deduction: question one suspect per turn (some lie by a fixed rule), "
            "then make an accusation",
            "find the odd-weight coin among many with a balance scale and a limited number of "
            "weighings",
            "identify a hidden object in a structured attribute space with yes/no queries",
        ],
    ),
    _skill(
        "Mathematical Reasoning",
        "multi-step quantitative reasoning: arithmetic, algebra, number theory, combinatorics, "
        "probability",
        [
            "count the arrangements that satisfy several combinatorial constraints at once",
            "solve a system of modular conditions hidden in a story about calendars or gears",
            "the exact expected value of a small dice game, as a reduced fraction",
            "a cryptarithm in which letters stand for distinct digits",
        ],
        [
            "reach an exact target number from a start value by choosing operations that cost "
            "budget",
            "a bidding game against an opponent whose fixed strategy can be worked out from its "
            "bids",
            "recover a hidden polynomial from evaluations at points you choose, with few queries",
        ],
    ),
    _skill(
        "Spatial Reasoning",
        "tracking positions, orientations, shapes and movement in two or three dimensions",
        [
            "where does a marked cell end up after a shape is rotated, reflected and shifted",
            "count the cubes visible from one side of a described stack of blocks",
            "the final position and heading of a robot after turn/move commands among walls",
        ],
        [
            "navigation with fog of war: explore a maze seeing only neighbouring cells and reach "
            "the exit before the fuel runs out",
            "push crates onto target squares in a small warehouse where careless moves get stuck",
            "rotate and slide pieces until they fill a target outline",
            "steer a drone through a 3-D grid with a wind drift you must infer from its motion",
        ],
    ),
    _skill(
        "Strategic Planning",
        "choosing sequences of actions that reach a goal under limited resources, deadlines or "
        "an opponent",
        [
            "the shortest plan that reaches a goal state in a small puzzle world (answer: the "
            "plan)",
            "schedule dependent tasks on two machines; answer the earliest finishing time",
            "the winning first move in a take-away game with unusual move rules",
        ],
        [
            "inventory management: buy, store and sell goods over several days of seeded demand",
            "negotiation with a simulated party that has a hidden reservation price and a "
            "concession rule",
            "a two-player game against a deterministic opponent that only a precise strategy "
            "beats",
            "a crafting tree under a turn budget: gather, build intermediate parts, then the goal "
            "item",
        ],
    ),
    _skill(
        "Causal Inference",
        "working out what causes what from interventions and observations, not just "
        "correlations",
        [
            "from a log of experiments with switches and lamps, say which switch drives which "
            "lamp",
            "a described causal graph with a confounder: predict the effect of an intervention",
            "find the ingredient that triggers a reaction from recipes and their outcomes",
        ],
        [
            "experiment design to find a hidden causal rule: set variables, run a trial, read "
            "the outcome, finally state the rule",
            "troubleshoot a machine: test components to trace symptoms to the faulty one, then "
            "repair it",
            "contain a spreading process on a network by intervening on a few nodes per turn",
            "debug a circuit of logic gates by probing wires",
        ],
    ),
    _skill(
        "Memory Recall",
        "keeping and using information seen earlier, across many items or many turns",
        [
            "a long event log; answer a question that combines facts scattered through it",
            "follow a sequence of swaps between containers; where does a given item end up",
            "a ledger with later corrections; the final balance of one account",
        ],
        [
            "a concentration game: flip cards, remember what was where, match all pairs within "
            "a flip budget",
            "a witness gives statements over several turns; later you must point out the "
            "contradictions",
            "items are shown once each turn and never again; later, buy exactly the remembered "
            "list",
        ],
    ),
    _skill(
        "Optimization",
        "finding the best solution among many under constraints, not merely a feasible one",
        [
            "a knapsack in which some items exclude each other; answer the best total value",
            "the cheapest route through weighted towns that visits every required stop",
            "assign workers to shifts at minimum cost while covering every shift",
        ],
        [
            "online knapsack: one item arrives per turn, accept or reject it, reach a target "
            "value without exceeding capacity",
            "run a factory: set production each turn as prices change and reach a profit target",
            "tune the hidden parameters of a black-box scorer with a limited number of "
            "evaluations",
        ],
    ),
    _skill(
        "Language Understanding",
        "interpreting, transforming and reasoning about words, sentences and meaning",
        [
            "rearrange a phrase into words that satisfy letter and length constraints",
            "find the sentence of a short passage that the other sentences contradict",
            "apply a described grammar rule of an invented language to a new sentence",
        ],
        [
            "a text adventure: read room descriptions, collect items, use them to open the way",
            "learn an invented language from short dialogues, then translate a message",
            "fill a small crossword where each answer is checked slot by slot",
        ],
    ),
)

_TOOL_USE_CATALOG = (
    _tool_skill(
        "API Orchestration",
        "chaining calls whose results feed the next call, across several simulated services",
        [
            "look up a customer, find their open order, then schedule its delivery with the carrier "
            "service",
            "check an account balance, convert the currency at the quoted rate, then transfer funds",
            "search flights, hold a seat, add the passenger, then confirm and report the booking code",
            "reserve stock in a warehouse, create the invoice for it, then mark the order as paid",
        ],
    ),
    _tool_skill(
        "Data Retrieval",
        "finding the right records with query tools and computing a precise answer from them",
        [
            "browse a directory tree to find the file that mentions a given project and report a "
            "figure from it",
            "search an order history for the most recent refunded order of a customer",
            "query sensor logs by time window and report the peak reading of one device",
            "page through a product catalogue to find the cheapest item meeting three constraints",
        ],
    ),
    _tool_skill(
        "State Modification",
        "changing a simulated system step by step, where each change depends on the state the "
        "previous ones left",
        [
            "create a user, grant the role a task needs, add them to a group, then verify access",
            "reorganise files: make folders, move and rename files by a stated rule",
            "bring a vehicle to a ready state: doors, engine, fuel, lights, in a valid order",
            "rebalance an inventory across shelves so every shelf meets its quota",
        ],
    ),
    _tool_skill(
        "Error Recovery",
        "noticing failed calls, reading the error, checking the state and retrying correctly",
        [
            "a move fails with 'not found': search for the file's real location and retry",
            "a payment is refused for insufficient funds: top up from the right account, then pay",
            "a booking tool rejects a malformed date: query the accepted format and rebook",
            "an operation needs a permission the session lacks: request it, then repeat the operation",
        ],
    ),
    _tool_skill(
        "Tool Selection",
        "choosing the right tool among similar ones, from what the state and the task require",
        [
            "several converters for different file formats: detect the format first, then convert",
            "create-or-update: check whether a record exists, then call the right one of the two tools",
            "route a support ticket with the tool of the matching department after reading it",
            "pick between a cheap approximate lookup and an exact but limited one",
        ],
    ),
    _tool_skill(
        "Multi-Step Workflows",
        "long ordered procedures in which later steps need the results of earlier ones",
        [
            "process an order end to end: search, check stock, reserve, pay, confirm, notify",
            "set up a service: check status, configure, enable, test, then report the test result",
            "a data pipeline: connect, query, filter, transform, write, then validate the output",
            "close a month: collect invoices, reconcile payments, flag mismatches, report the total",
        ],
    ),
)

#: The nine cognitive skills games train, keyed by display name.
SKILLS: dict[str, Skill] = {skill.name: skill for skill in _CATALOG}
#: The six skills tool-use environments train, keyed by display name.
TOOL_USE_SKILLS: dict[str, Skill] = {skill.name: skill for skill in _TOOL_USE_CATALOG}
_BY_SLUG = {skill.slug: skill for skill in _CATALOG + _TOOL_USE_CATALOG}


def skills_for(kind: str) -> dict[str, Skill]:
    """The skills of one kind of environment (``"game"`` or ``"tool-use"``)."""
    if kind == GAME_KIND:
        return SKILLS
    if kind == TOOL_USE_KIND:
        return TOOL_USE_SKILLS
    raise ValueError(f"unknown environment kind {kind!r}; choose {GAME_KIND!r} or {TOOL_USE_KIND!r}")


def skill_by_name(name: str | Skill) -> Skill:
    """Look a skill up by name or slug, ignoring case, spaces, hyphens and underscores.

    CLI users and presets spell skills both ways ("logical_deduction", "Logical
    Deduction"); both must reach the same entry.
    """
    if isinstance(name, Skill):
        return name
    skill = _BY_SLUG.get(slug_of(name))
    if skill is None:
        valid = ", ".join(f"{s.name!r} ({s.slug})" for s in _CATALOG + _TOOL_USE_CATALOG)
        raise ValueError(f"unknown skill {name!r}; valid skills are: {valid}")
    return skill
