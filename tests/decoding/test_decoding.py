"""spade_gym.decoding: every spelling of an answer is read, and honest texts stay honest.

One test per decoder (an example it must read), properties over random numbers in every
spelling, and the other half of the bargain: a validator that rejects a sound program is a
wrong reward too, so realistic game texts must not reveal their secrets.
"""

from __future__ import annotations

import string

import pytest
import spellers
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from spade_gym.decoding import DECODERS, MAX_CHARS, candidates, canonical, explain, normal_form, reveals

#: decoder -> (text, a reading it must give, the solution that reading reveals). Every decoder of
#: the registry has at least one: adding a decoder means adding its example here.
EXAMPLES = {
    "plain": [("Try a1-b2, then -3.5.", "a1-b2", "a1-b2"), ("Try a1-b2, then -3.5.", "3.5", "3.5")],
    "thousands": [("Roughly 4,821 coins", "4821", "4821"), ("rund 4.821 Münzen", "4821", "4821")],
    "ordinal_numbers": [("the 21st house", "21", "21"), ("le 21e jour", "21", "21")],
    "number_words_en": [("four thousand eight hundred twenty-one", "4821", "4821"),
                        ("nineteen hundred", "1900", "1900")],
    "number_words_fr": [("quatre mille huit cent vingt et un", "4821", "4821"),
                        ("quatre-vingt-dix-sept", "97", "97"), ("soixante et onze", "71", "71")],
    "number_words_de": [("viertausendachthunderteinundzwanzig", "4821", "4821"), ("einundzwanzig", "21", "21"),
                        ("die siebzehnte Tür", "17", "17")],
    "number_words_es": [("cuatro mil ochocientos veintiuno", "4821", "4821"), ("veintiuno", "21", "21"),
                        ("treinta y dos", "32", "32")],
    "year_style": [("forty-eight twenty-one", "4821", "4821"), ("nineteen eighty-four", "1984", "1984")],
    "roman": [("The plaque reads MMMMDCCCXXI.", "4821", "4821"), ("XLVIII XXI", "4821", "4821"),
              ("roman numeral xlii", "42", "42"), ("IV", "4", None)],
    "bases": [("try 0x12d5", "4821", "4821"), ("hex 12d5", "4821", "4821"), ("0b1001011010101", "4821", "4821"),
              ("base 7: 20025", "4821", "4821")],
    "digit_groups": [("call 48 21 now", "4821", "4821"), ("4.8.21", "4821", "4821")],
    "separated": [("4, 8, 2 and 1", "4821", "4821"), ("c-a-t", "cat", "cat"), ("vier acht zwei eins", "4821", "4821")],
    "glued": [("ref zz4821qq", "4821", "4821"), ("4a8b2c1", "4821", "4821")],
    "confusables": [("the word is \u0441\u0430t", "cat", "cat")],
    "encodings": [("NDgyMQ==", "4821", "4821"), ("rot13: pngf", "cats", "cats"),
                  ("\\u0034\\u0038\\u0032\\u0031", "4821", "4821"), ("&#52;&#56;&#50;&#49;", "4821", "4821"),
                  ('{"memo": "\\uff14\\uff18\\uff12\\uff11"}', "4821", "4821")],
    "reversed_readings": [("1284", "4821", "4821"), ("reversed: 12", "21", "21"), ("backwards: xof", "fox", "fox"),
                          ("the sign says stop", "pots", "pots")],
    "acrostic": [("Big Lazy Umbrellas Erupt.", "blue", "blue"), ("Blue\nLemon\nUmbrella\nEagle", "blue", "blue")],
    "acrostic_window": [("we saw Big Lazy Umbrellas Erupt today", "wsbluet", "blue")],
}


def _name(fn) -> str:
    return fn.__name__


def test_every_decoder_has_an_example():
    assert sorted(map(_name, DECODERS)) == sorted(EXAMPLES)


@pytest.mark.parametrize("name", [_name(fn) for fn in DECODERS])
def test_each_decoder_reads_its_spelling(name):
    fn = next(f for f in DECODERS if _name(f) == name)
    for text, reading, solution in EXAMPLES[name]:
        readings = list(fn(text))
        if getattr(fn, "window", False):
            assert any(reading in r for r in readings), (text, readings)
        else:
            assert reading in readings, (text, readings)
        assert reading in candidates(text) or getattr(fn, "window", False), text
        if solution is not None:
            assert reveals(text, solution), (name, text, solution)


def test_normal_form():
    assert normal_form("Code:\u3000４８\u200b２\u00ad１\n\n  OK") == "code: 4821 ok"
    assert normal_form("\u0664\u0668\u0662\u0661 \U0001d7d2") == "4821 4"  # Arabic-Indic, mathematical bold
    assert normal_form("4\ufe0f\u20e38\ufe0f\u20e3") == "48"  # keycaps
    assert normal_form("STRASSE Straße") == "strasse strasse"
    assert normal_form("café") == "café"  # accents are kept (readings compare without them)


def test_canonical_is_the_old_normal_form_and_more():
    assert canonical("The 4821st, 4,821 or four thousand eight hundred twenty-one") == "the 4821, 4821 or 4821"
    assert canonical("C-A-T") == "cat"
    assert canonical("keep the first one that fits") == "keep the 1 1 that fits"
    assert canonical("\\boxed{quatre-vingt-dix}") == "90"


def test_candidates_lists_readings_in_order_without_duplicates():
    found = candidates("The code is MMMMDCCCXXI. You have 3 tries, 3 tries.")
    assert found[:4] == ["the", "code", "is", "mmmmdcccxxi"]
    assert "4821" in found and len(found) == len(set(found))
    assert len(candidates(" ".join(f"w{i}" for i in range(5000)), limit=50)) == 50


def test_explain_names_the_spelling():
    assert explain("XLVIII XXI", "4821") == "in Roman numerals"
    assert explain("the dial shows 1284", "4821") == "reversed"
    assert explain("quatre mille huit cent vingt et un", "4821") == "in French words"
    assert explain("nothing here", "4821") is None


# ----------------------------------------------------------------------------- every spelling, any number

SPELLINGS = {
    "english": spellers.english, "french": spellers.french, "german": spellers.german, "spanish": spellers.spanish,
    "fullwidth": lambda n: spellers.fullwidth(str(n)), "arabic-indic": lambda n: spellers.arabic_indic(str(n)),
    "zero-width": lambda n: spellers.zero_width_split(str(n)), "hex": lambda n: hex(n),
    "binary": lambda n: bin(n), "hex-word": lambda n: f"in hex: {n:x}" if any(c.isdigit() for c in f"{n:x}") else hex(n),
    "reversed-marked": lambda n: f"read backwards: {str(n)[::-1]}", "thousands": lambda n: f"{n:,}",
    "ordinal": lambda n: f"the {n}th",
    # one character at a time: three characters at least (two single digits are a range, "1-5")
    "dashed": lambda n: "-".join(str(n * 10)), "spaced": lambda n: " ".join(str(n * 10)),
    "listed": lambda n: ", ".join(str(n * 10)[:-1]) + " and " + str(n * 10)[-1],
}
#: The spellings above that spell ten times the number.
TIMES_TEN = {"dashed", "spaced", "listed"}
#: Words that are ordinary English words alone ("once", "mil", "seize", "elf") are read only inside
#: a longer number: the bare value they name is not tested.
AMBIGUOUS_ALONE = {"french": {16, 100, 1000}, "german": {11}, "spanish": {11, 15, 1000}}


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
@settings(max_examples=150, deadline=None)
@given(n=st.integers(min_value=10, max_value=999_999))
def test_every_spelling_of_a_number_reveals_it(spelling, n):
    assume(n not in AMBIGUOUS_ALONE.get(spelling, ()))
    text = SPELLINGS[spelling](n)
    assert reveals(f"Note: {text}.", str(n * 10 if spelling in TIMES_TEN else n)), text


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=10, max_value=4999))
def test_roman_numerals_reveal_their_value(n):
    text = spellers.roman(n)
    assume(len(text) >= 2)  # a lone "X", "C" or "M" in prose is a letter (a grid column, a grade)
    assert reveals(f"The plaque reads {text}.", str(n)), text


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=10, max_value=99), st.integers(min_value=10, max_value=99))
def test_year_style_pairs_reveal_the_four_digits(a, b):
    assert reveals(f"it was {spellers.english(a)} {spellers.english(b)}", f"{a}{b}")


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=100, max_value=10**8))
def test_glued_and_reversed_digits_reveal_the_number(n):
    assert reveals(f"ref zz{n}qq", str(n))
    assert reveals(f"dial {str(n)[::-1]}", str(n))


_NO_DIGITS = st.text(st.characters(blacklist_categories=("Nd", "No", "Nl", "Cs")), max_size=300)


@settings(max_examples=300, deadline=None)
@given(_NO_DIGITS)
def test_text_without_digits_or_number_words_does_not_reveal_a_number(text):
    assert not reveals(text, "4821")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from("you have attempts left guess the number between and a door key is hidden "
                                "behind red stone north gold coins score turn cat dog sat on mat".split()),
                max_size=80), st.integers(min_value=100, max_value=99_999), st.integers(min_value=100, max_value=99_999))
def test_other_numbers_do_not_reveal_a_number(words, n, m):
    assume(n != m and str(n) != str(m)[::-1])
    text = " ".join(words) + f" {m} {spellers.english(m)}"
    assert not reveals(text, str(n))


# ----------------------------------------------------------------------------- honest texts stay honest

HONEST = [
    ("You have 8 attempts left. Guess a number between 1 and 100.", "57"),
    ("Wrong! 75 is too high. 7 attempts remain. Range: 1-100.", "57"),
    ("There are seventy-five marbles in the jar.", "57"),
    ("Turn 3 of 10. Score: 12. Options: A) 5, B) 7, C) 11", "57"),
    ("Grid:\n1 2 3\n4 5 6\n7 8 9", "57"),
    ("You have 1200 coins and 12 gems.", "120"),
    ("The vault holds 1200 coins.", "12"),
    ("Room zz12qq is locked.", "12"),
    ("Mix the acid, then add the did solution.", "1009"),
    ("Once upon a time a cent was worth a lot.", "11"),
    ("Keep the first one that fits.", "2"),
    ("Claims:\n  A. The bell rang.\n  B. The mayor came.\n  C. The well was dry.\n  D. The shop was shut.", "bcd"),
    ("Rewordings:\n  A. After the storm.\n  B. Before the bell.\n  C. Carla left.\n  D. During the fair.", "abcd"),
    ("Rewordings:\n  A. After the storm.\n  B. Before the bell.\n  C. Carla left.\n  D. During the fair.", "bcd"),
    ("Exactly 3 of the 8 candidates are rotations; find a distinctive feature of the target.", "adf"),
    ("Pick one of 4 doors. The sign says: stop.", "pot"),
    ("Board:\n W ? D W W\n W S ? ? W\n D W W D W", "dws"),
    ("Guess the word: 5 letters, 6 tries.", "x"),
]


@pytest.mark.parametrize(("text", "secret"), HONEST)
def test_honest_game_texts_do_not_reveal_their_secret(text, secret):
    assert not reveals(text, secret), explain(text, secret, min_chars=1)


def test_a_single_character_never_counts_by_default():
    assert not reveals("the answer is 7", "7")
    assert reveals("the answer is 7", "7", min_chars=1)


def test_glued_runs_count_whole_and_only_for_three_characters_or_more():
    assert reveals("zz482qq", "482") and not reveals("zz12qq", "12")
    assert not reveals("zz4821qq", "482") and not reveals("1200 items", "12")


def test_long_texts_are_read_up_to_the_cap():
    padding = "word " * (MAX_CHARS // 5)
    assert reveals("MMMMDCCCXXI " + padding, "4821")
    assert not reveals(padding + " MMMMDCCCXXI", "4821")


@pytest.mark.parametrize("letters", [string.ascii_uppercase[i:i + 5] for i in range(0, 20, 5)])
def test_option_labels_do_not_spell_answers(letters):
    screen = "\n".join(f"{c}. The option {c.lower()} holds." for c in letters)
    assert not reveals(screen, letters[1:4]) and not reveals(screen, letters)
