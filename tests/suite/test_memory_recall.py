"""The Memory Recall games must test memory of derived state, not lookup.

An agent keeps its whole chat transcript, so a game whose answer can be copied from an earlier
observation (find the line that names the asked-about thing, take its value) tests lookup. Each
game below is attacked by transcript-lookup agents that do no reasoning beyond that: the latest
value printed for the asked-about item, the first value printed for it, a sum of the numbers on the
lines that name it, the position where a picture was last seen, and so on. They see every
observation so far, as a model would, and play through ``gym.make`` like any agent.

LOOKUP_WIN_LIMIT: the best lookup agent must win under 35% of the episodes on every level. The
games hand out a few strikes or attempts, so a lookup reader that is right on most steps can still
win now and then by luck (a blind guess at a small answer space, a deal where the moves happen to
miss the asked item); 35% leaves room for that on 8 seeds (at most 2 wins) while failing any game
whose questions a reader answers by copying: before the redesign these agents won 100% of some
level of six of the nine games the suite then had (SkullConcentration, CodebookCourier, MemoryPalaceFetch,
CargoManifestAmend, TwinChannelRecall, WitnessClash).
"""

from __future__ import annotations

import re

import gymnasium as gym
import pytest

from spade_gym.env.wrappers import privileged
from spade_gym.registry import Suite, bundled_suite_path

LEVELS = ("easy", "medium", "hard")
SEEDS = range(100, 108)
LOOKUP_WIN_LIMIT = 0.35
MAX_STEPS = 80


def boxed(text: str) -> str:
    return "\\boxed{" + text + "}"


def play(env, agent, seeds=SEEDS) -> float:
    """Share of `seeds` that `agent` (a function of the list of observations so far) wins on `env`."""
    wins = 0
    for seed in seeds:
        obs, _ = env.reset(seed=seed)
        transcript = [obs]
        for _ in range(MAX_STEPS):
            obs, reward, terminated, truncated, _ = env.step(agent(transcript))
            transcript.append(obs)
            if terminated or truncated:
                wins += reward > 0
                break
    return wins / len(seeds)


def lines_of(transcript) -> list[str]:
    return [line for obs in transcript for line in obs.splitlines()]


def numbers(line: str) -> list[int]:
    return [int(n) for n in re.findall(r"(?<![\w:])\d+(?![\w:])", line)]


def latest_number(lines, key: str, default: int = 0) -> int:
    """The last number on the last line that names `key` (the lookup of 'its latest value')."""
    for line in reversed(lines):
        if key.lower() in line.lower() and numbers(line):
            return numbers(line)[-1]
    return default


# ---------------------------------------------------------------- lookup agents, one family per game
ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"]


def marble_start(transcript):
    """The child's starting count, read off the opening line."""
    m = re.search(r"how many marbles does (\w+) hold", transcript[-1])
    if not m:
        return boxed("next")
    start = re.search(rf"\b{m.group(1)} (\d+)", transcript[0])
    return boxed(start.group(1) if start else "0")


def marble_latest(transcript):
    """The last number printed on a line that names the child."""
    m = re.search(r"how many marbles does (\w+) hold", transcript[-1])
    if not m:
        return boxed("next")
    return boxed(str(latest_number(lines_of(transcript)[:-1], m.group(1))))


def shell_start(transcript):
    """What lay under the asked positions in the opening row."""
    m = re.search(r"under the (\w+) cup and under the (\w+) cup", transcript[-1])
    if not m:
        return boxed("next")
    row = re.search(r"from left to right: (.*?)\.\n", transcript[0]).group(1).split(", ")
    return boxed(", ".join(row[ORDINALS.index(w)] for w in m.groups()))


CARGO_OWNERS = ("Halvorsen", "Marek", "Okafor", "Lindqvist", "Dubois", "Sato", "Moreau", "Petrova", "Alvarez",
                "Keller", "Nakamura", "Brennan")


def cargo_lookup(transcript, follow_amendments=True, hop=False):
    """Owner and deck of each crate: the last ones printed on a line naming it (unloaded crates dropped); with
    `hop`, an amendment naming another crate's owner or deck takes that crate's printed value. Then the filtered
    sum of weights."""
    crates, printed = {}, {}
    for line in lines_of(transcript[:1]):
        m = re.match(r"(A\d+\. )?Crate (\d+)", line)
        if not m or (m.group(1) and not follow_amendments):
            continue
        c = crates.setdefault(m.group(2), {})
        if "unloaded" in line:
            c["gone"] = True
        owners = [o for o in re.findall(r"[A-Z][a-z]+", line) if o in CARGO_OWNERS]
        decks = re.findall(r"deck (\d)", line)
        ref = re.search(r"(owner of|deck where) crate (\d+)", line)
        if hop and ref and ref.group(2) in printed:
            field = "owner" if ref.group(1) == "owner of" else "deck"
            c[field] = printed[ref.group(2)].get(field)
        if owners:
            c["owner"] = owners[-1]
        if decks:
            c["deck"] = decks[-1]
        kg = re.search(r"(\d+) kg", line)
        if kg:
            c["kg"] = int(kg.group(1))
        if not m.group(1):
            printed[m.group(2)] = dict(c)
    q = re.search(r"belong to (\w+) and sit on deck (\d)", transcript[0])
    total = sum(c.get("kg", 0) for c in crates.values()
                if not c.get("gone") and c.get("owner") == q.group(1) and c.get("deck") == q.group(2))
    return boxed(str(total))


def cargo_printed(transcript):
    return cargo_lookup(transcript, follow_amendments=False)


def cargo_hop(transcript):
    return cargo_lookup(transcript, hop=True)


def cargo_each_in_turn(transcript):
    """One lookup total per attempt: the one-hop reading, the last printed values, the printed manifest."""
    return (cargo_hop, cargo_lookup, cargo_printed)[min(len(transcript) - 1, 2)](transcript)


def skull_last_seen(transcript, forget_moved=False):
    """Where each picture was last seen; known pairs first, never a seen skull. With `forget_moved`, a position
    named in a later dealer line is forgotten instead (a cautious reader that still does not track the moves)."""
    seen = {}
    for line in lines_of(transcript):
        seen.update(re.findall(r"\b([A-E]\d) = ([A-Z]+)", line) + re.findall(r"You flip ([A-E]\d): ([A-Z]+)", line))
        if forget_moved and "The dealer" in line:
            for pos in re.findall(r"\b[A-E]\d\b", line.split("The dealer", 1)[1]):
                seen.pop(pos, None)
    last = transcript[-1]
    live = [f"{row}{i + 1}" for row, cells in re.findall(r"^  ([A-E])  (.*)$", last, re.M)
            for i, cell in enumerate(cells.split()) if cell != "--"]
    first = re.search(r"your first card ([A-E]\d) is face up", last)
    first = first.group(1) if first else None
    unseen = [p for p in live if p not in seen and p != first]
    safe = [p for p in live if seen.get(p) != "SKULL" and p != first]
    if first:
        partner = [p for p in live if p != first and seen.get(p) == seen.get(first)]
        return boxed("flip " + (partner + unseen + safe + live)[0])
    for p in live:
        if seen.get(p) not in (None, "SKULL") and [q for q in live if seen.get(q) == seen[p]] != [p]:
            return boxed("flip " + p)
    return boxed("flip " + (unseen + safe + live)[0])


def skull_forget_moved(transcript):
    return skull_last_seen(transcript, forget_moved=True)



def codebook_lookup(transcript, hop=False):
    """Each code's meaning as last printed; with `hop`, the last amendment naming the code is followed one step
    (a swap or rotation gives it the partner's printed meaning, a take-over the other code's)."""
    text = "\n".join(transcript)
    printed = dict(re.findall(r"\b([A-Z]{3}) = (\w+)", text))
    printed.update(re.findall(r"code ([A-Z]{3}) means '(\w+)'", text))
    meaning = dict(printed)
    if hop:
        for line in lines_of(transcript):
            if "AMENDMENT" not in line:
                continue
            codes = re.findall(r"\b[A-Z]{3}\b", line.split(":", 1)[1])
            if "swap" in line and len(codes) >= 2:
                meaning[codes[0]], meaning[codes[1]] = printed.get(codes[1]), printed.get(codes[0])
            elif "rotate" in line and len(codes) >= 3:
                for k in range(3):
                    meaning[codes[k]] = printed.get(codes[(k + 1) % 3])
            elif "takes over" in line and len(codes) >= 2:
                meaning[codes[0]], meaning[codes[1]] = printed.get(codes[1]), None
    groups = re.findall(r"Dispatch \d+: ([A-Z ]+)", transcript[-1])[-1].split()
    return boxed("decode " + " ".join(meaning[g] for g in groups if meaning.get(g)))


def codebook_hop(transcript):
    return codebook_lookup(transcript, hop=True)


def codebook_retry(transcript):
    """The printed meanings first; after a strike on this dispatch, the one-hop reading."""
    return codebook_lookup(transcript, hop="Try this dispatch again" in transcript[-1])



def palace_lookup(transcript, hop=False):
    """The curio's room read off the lit tour (with `hop`: moved by the last porters' line naming that room),
    then the shortest path over the printed doors."""
    doors, room_of = {}, {}
    for room, ds, holds in re.findall(r"- (\w+): doors (.*?)\. Holds: (.*)\.", transcript[0]):
        doors[room] = dict(re.findall(r"(north|south|east|west) to the (\w+)", ds))
        room_of.update((curio, room) for curio in re.findall(r"the (\w+ \w+)", holds))
    last = transcript[-1]
    here = re.findall(r"You stand in the dark (\w+)", last)[-1]
    asked = re.search(r"(?:bring me|room did you see|room is) the (\w+ \w+)", last).group(1)
    goal = room_of.get(asked, here)
    if hop:
        for line in reversed([ln for ln in lines_of(transcript) if "porters" in ln]):
            rooms = re.findall(r"the ([A-Z]\w+)", line.split("porters", 1)[1])
            if goal in rooms[:2] and len(rooms) >= 2:
                goal = rooms[1] if goal == rooms[0] else (rooms[0] if "swapped" in line else goal)
                break
    if "Curator's quiz" in last:
        return boxed("answer " + goal)
    if goal == here:
        return boxed("take " + asked)
    previous, queue = {here: None}, [here]
    for room in queue:
        for direction, nxt in doors.get(room, {}).items():
            if nxt not in previous:
                previous[nxt] = (room, direction)
                queue.append(nxt)
    while goal in previous and previous[goal] and previous[goal][0] != here:
        goal = previous[goal][0]
    return boxed("go " + previous[goal][1]) if previous.get(goal) else boxed("go north")


def palace_hop(transcript):
    return palace_lookup(transcript, hop=True)



WITNESS_PEOPLE = ("the nurse", "the cyclist", "the old man", "the student", "the courier", "the priest",
                  "the tourist", "the baker's boy", "the lady in spectacles", "the chauffeur")
WITNESS_VALUES = {"coat": r"\b(red|grey|green|yellow|navy|brown|white|black|purple|orange)\b",
                  "item": r"(umbrella|briefcase|parcel|violin case|dog leash|newspaper|shopping bag|camera|birdcage"
                          r"|toolbox)",
                  "place": r"(bakery|bank|pharmacy|newsstand|post office|cafe|bookshop|florist|town hall|barber's)",
                  "time": r"(\d+:\d\d)"}


def _witness_parse(statement):
    """(people named, {attribute: value}, swapped attribute or None)."""
    low = statement.lower()
    people = sorted((p for p in WITNESS_PEOPLE if p in low), key=low.index)
    swapped = "coat" if re.search(r"(swapped|exchanged) coats", low) else (
        "item" if re.search(r"traded|handed what they carried", low) else None)
    values = {} if swapped else {a: m[0] for a, rx in WITNESS_VALUES.items() if (m := re.findall(rx, low))}
    return people, values, swapped


def witness_lookup(transcript, hop=False):
    """Compare the statement with the last value printed for that person and attribute (with `hop`: when the last
    statement naming them is a swap, with the partner's last printed value) and cite that statement."""
    statements = {}
    for obs in transcript:
        statements.update((int(n), text) for n, text in re.findall(r'Statement (\d+): "(.*)"', obs))
    k = max(statements)
    people, values, swapped = _witness_parse(statements[k])
    if swapped or not people or len(values) != 1:
        return boxed("noted")
    (attr, value), person = next(iter(values.items())), people[0]
    for j in range(k - 1, 0, -1):
        named, vals, sw = _witness_parse(statements.get(j, ""))
        if person in named and attr in vals:
            return boxed("noted" if vals[attr] == value else f"conflict {j}")
        if hop and person in named and sw == attr and len(named) == 2:
            partner = named[1] if named[0] == person else named[0]
            for i in range(j - 1, 0, -1):
                pn, pv, _ = _witness_parse(statements.get(i, ""))
                if partner in pn and attr in pv:
                    return boxed("noted" if pv[attr] == value else f"conflict {j}")
            return boxed("noted")
    return boxed("noted")


def witness_hop(transcript):
    return witness_lookup(transcript, hop=True)


def witness_always_noted(transcript):
    return boxed("noted")



def _store_goods_named(line, good):
    stem = good[:-1] if good.endswith("s") else good
    return re.search(rf"\b{stem}s?\b", line) is not None


def store_lookup(transcript, how="latest"):
    """Stock read off the transcript without keeping a tally: `opening` (the opening row), `latest` (the last
    number on a line naming the good), `sum` (all numbers on lines naming the good added up). A customer is served
    when that number covers the order."""
    news = [line for line in lines_of(transcript) if not line.startswith(("Request", "Commands", "Turn"))]
    request = transcript[-1].split("Request:", 1)[-1]
    order = re.search(r"asks for (\d+) (\w+)", request)
    good = order.group(2) if order else re.search(r"how many (\w+)", request).group(1)
    shelf = order or "shop shelf right now" in request
    place = "on the shop shelf" if shelf else "in the storeroom"
    opening = re.search(rf"- {good[:-1]}\w*: (\d+) on the shop shelf, (\d+) in", transcript[0])
    if how == "opening" and opening:
        value = int(opening.group(1)) + (0 if shelf else int(opening.group(2)))
        if "right now" in request and not shelf:
            value = int(opening.group(2))
    elif how == "sum":
        value = sum(sum(numbers(line)) for line in news if _store_goods_named(line, good))
    else:
        value = latest_number([line for line in news if _store_goods_named(line, good) and
                               (place.split()[-1] in line or not order)], good[:-1])
    if order:
        return boxed("sell" if value >= int(order.group(1)) else "decline")
    return boxed(f"count {value}")


def store_opening(transcript):
    return store_lookup(transcript, "opening")


def store_latest(transcript):
    return store_lookup(transcript, "latest")


def store_sum(transcript):
    return store_lookup(transcript, "sum")


#: Every Memory Recall game of the bundled suite and the lookup agents that attack it.
LOOKUP_AGENTS = {
    "SkullConcentration": (skull_last_seen, skull_forget_moved),
    "CodebookCourier": (codebook_lookup, codebook_hop, codebook_retry),
    "MemoryPalaceFetch": (palace_lookup, palace_hop),
    "WitnessClash": (witness_lookup, witness_hop, witness_always_noted),
    "MarbleLedger": (marble_start, marble_latest),
    "GeneralStoreTally": (store_opening, store_latest, store_sum),
    "ShellGame": (shell_start,),
    "CargoManifestAmend": (cargo_lookup, cargo_printed, cargo_hop, cargo_each_in_turn),
}


def test_every_memory_recall_game_is_attacked():
    games = {e.card.name for e in Suite(bundled_suite_path()).entries() if e.card.skill == "Memory Recall"}
    assert games == set(LOOKUP_AGENTS)


@pytest.mark.parametrize("name", sorted(LOOKUP_AGENTS))
@pytest.mark.parametrize("level", LEVELS)
def test_lookup_agents_lose_and_the_oracle_wins(name, level):
    env = gym.make(f"spade/{name}-v0", difficulty=level)
    try:
        rates = {agent.__name__: play(env, agent) for agent in LOOKUP_AGENTS[name]}
        oracle = play(env, lambda transcript: boxed(privileged(env).solution()), SEEDS[:4])
    finally:
        env.close()
    assert max(rates.values()) < LOOKUP_WIN_LIMIT, rates
    assert oracle == 1.0
