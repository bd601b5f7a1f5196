"""DockTruckLoading must need look-ahead: the public screen determines a winning plan, and no online packing rule
(or the offline heaviest-first rule) reaches the target.

Host-side agents play it through ``gym.make`` (the program runs in the sandbox), each seeing only the screens:

* a *reader-solver* parses the screen and searches every way to load the remaining parcels with an independent
  depth-first search: it must win every episode, so the screen holds all that a winning plan needs;
* the classic bin-packing rules (first fit, best fit, next fit, worst fit, and heaviest-first packing followed in
  arrival order): each must win under HEURISTIC_LIMIT of the episodes at every level, the shortcut zoo's threshold.
"""

from __future__ import annotations

import re

import gymnasium as gym
import pytest
from testkit import transcript_win_rate

import spade_gym  # noqa: F401  (registers the bundled suite)

ENV_ID = "spade/DockTruckLoading-v0"
LEVELS = ("easy", "medium", "hard")
SEEDS = range(300, 308)
HEURISTIC_LIMIT = 0.5
MAX_STEPS = 20


def play(level: str, agent, seeds=SEEDS) -> float:
    return transcript_win_rate(ENV_ID, level, lambda screens: agent(screens[-1]), seeds, MAX_STEPS)


def parse(obs: str) -> dict:
    """Parcels (weight, fragile), the index on the dock, open trucks (list of parcel indices), and the rules."""
    parcels, trucks = [], []
    current = None
    for m in re.finditer(r"parcel (\d+): (\d+) kg(, FRAGILE)? - (.*)", obs):
        parcels.append((int(m.group(2)), bool(m.group(3))))
        if m.group(4) == "ON THE DOCK NOW":
            current = int(m.group(1)) - 1
    for m in re.finditer(r"truck \d+: \d+/\d+ kg \(parcels ([\d, ]+)\)", obs):
        trucks.append([int(x) - 1 for x in m.group(1).split(",")])
    light = re.search(r"no parcel over (\d+) kg", obs)
    return {
        "parcels": parcels,
        "current": current,
        "trucks": trucks,
        "capacity": int(re.search(r"carries at most (\d+) kg", obs).group(1)),
        "light": int(light.group(1)) if light else None,
        "target": int(re.search(r"using at most (\d+) trucks", obs).group(1)),
    }


def allowed(s: dict, load: int, closed: bool, weight: int) -> bool:
    return load + weight <= s["capacity"] and not (closed and s["light"] is not None and weight > s["light"])


def truck_states(s: dict) -> list[tuple[int, bool]]:
    return [(sum(s["parcels"][j][0] for j in t), any(s["parcels"][j][1] for j in t)) for t in s["trucks"]]


def answer(k: int, open_trucks: int) -> str:
    return "\\boxed{new}" if k >= open_trucks else "\\boxed{" + str(k + 1) + "}"


def reader_solver(obs: str) -> str:
    s = parse(obs)
    parcels, target = s["parcels"], s["target"]

    def search(i: int, trucks: list[tuple[int, bool]]) -> int | None:
        """A truck index for parcel i from which every remaining parcel fits in `target` trucks, else None."""
        if i == len(parcels):
            return 0
        weight, fragile = parcels[i]
        tried = set()
        for k, (load, closed) in enumerate(trucks):
            if (load, closed) in tried or not allowed(s, load, closed, weight):
                continue
            tried.add((load, closed))
            rest = trucks[:k] + [(load + weight, closed or fragile)] + trucks[k + 1:]
            if search(i + 1, rest) is not None:
                return k
        if len(trucks) < target and search(i + 1, trucks + [(weight, fragile)]) is not None:
            return len(trucks)
        return None

    k = search(s["current"], truck_states(s))
    assert k is not None, "the screen's target is unreachable from this state"
    return answer(k, len(s["trucks"]))


def online_rule(rule: str):
    def agent(obs: str) -> str:
        s = parse(obs)
        weight = s["parcels"][s["current"]][0]
        states = truck_states(s)
        ok = [k for k, (load, closed) in enumerate(states) if allowed(s, load, closed, weight)]
        if rule == "next":
            ok = [k for k in ok if k == len(states) - 1]
        if not ok:
            return answer(len(states), len(states))
        if rule == "best":
            return answer(max(ok, key=lambda k: (states[k][0], -k)), len(states))
        if rule == "worst":
            return answer(min(ok, key=lambda k: (states[k][0], k)), len(states))
        return answer(ok[0], len(states))

    return agent


def heaviest_first(obs: str) -> str:
    """Pack all parcels heaviest first into the first truck with room (weight limit only), then follow that packing
    in arrival order."""
    s = parse(obs)
    weights = [w for w, _ in s["parcels"]]
    bins: list[list[int]] = []
    for i in sorted(range(len(weights)), key=lambda j: (-weights[j], j)):
        home = next((b for b in bins if sum(weights[j] for j in b) + weights[i] <= s["capacity"]), None)
        if home is None:
            bins.append([i])
        else:
            home.append(i)
    mine = next(b for b in bins if s["current"] in b)
    for k, truck in enumerate(s["trucks"]):
        if set(truck) & set(mine):
            return answer(k, len(s["trucks"]))
    return answer(len(s["trucks"]), len(s["trucks"]))


HEURISTICS = {
    "first fit": online_rule("first"),
    "best fit": online_rule("best"),
    "next fit": online_rule("next"),
    "worst fit": online_rule("worst"),
    "heaviest first": heaviest_first,
}


@pytest.mark.parametrize("level", LEVELS)
def test_the_screen_determines_a_winning_plan(level):
    assert play(level, reader_solver) == 1.0


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("heuristic", sorted(HEURISTICS))
def test_packing_rules_without_look_ahead_lose(heuristic, level):
    rate = play(level, HEURISTICS[heuristic])
    assert rate < HEURISTIC_LIMIT, f"DockTruckLoading {level}: '{heuristic}' won {rate:.0%}"


def test_first_screens_differ_between_seeds():
    for level in LEVELS:
        env = gym.make(ENV_ID, difficulty=level)
        try:
            screens = {env.reset(seed=seed)[0] for seed in range(16)}
        finally:
            env.close()
        assert len(screens) >= 12, (level, len(screens))
