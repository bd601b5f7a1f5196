"""Definition-clued anagram: a shuffled pool of letters spells the hidden word and several look-alike decoy
words of the same length (plus stray letters on harder levels), and a dictionary-style definition says what
the word means; find the one word the definition describes."""

import random
import re
from collections import Counter

LEXICON = {
    # 5-6 letters
    "anchor": "heavy hook lowered on a chain to hold a ship in place",
    "basket": "container woven from strips of cane or willow",
    "candle": "stick of wax with a wick, burned to give light",
    "castle": "fortified stone home of a medieval lord",
    "cactus": "spiny desert plant that stores water in its stem",
    "dragon": "fire-breathing winged beast of legend",
    "falcon": "swift bird of prey trained for hunting",
    "garden": "plot beside a house where flowers or vegetables are grown",
    "ginger": "pungent root used as a spice, also a reddish hair colour",
    "hammer": "tool with a heavy head for driving nails",
    "island": "piece of land with the sea on every side",
    "jacket": "short coat reaching to the hips",
    "jungle": "dense, steamy tropical forest",
    "kettle": "metal pot with a spout for boiling water",
    "ladder": "pair of rails joined by rungs, for climbing",
    "lemon": "sour yellow citrus fruit",
    "magnet": "piece of metal that attracts iron",
    "meadow": "field of grass and wild flowers",
    "needle": "slender pointed sewing tool with an eye",
    "orchid": "exotic flower prized by collectors",
    "oyster": "shellfish that may hide a pearl",
    "parrot": "brightly coloured bird that can mimic speech",
    "pencil": "writing stick with a core of graphite",
    "pirate": "robber who attacks ships at sea",
    "planet": "large body that travels around a star",
    "pocket": "small pouch sewn into a garment",
    "rabbit": "long-eared burrowing animal",
    "saddle": "seat strapped to a horse's back",
    "salmon": "pink-fleshed fish that swims upstream to spawn",
    "shadow": "dark shape cast where light is blocked",
    "spider": "eight-legged creature that spins webs",
    "statue": "carved or cast figure of a person or animal",
    "tunnel": "passage dug under the ground",
    "turtle": "reptile that carries its shell, often living in water",
    "velvet": "soft fabric with a thick short pile",
    "violin": "four-stringed instrument tucked under the chin",
    "walrus": "tusked arctic sea mammal",
    "window": "glazed opening in a wall",
    "wizard": "man who practises magic",
    "bridge": "structure carrying a road over a river",
    "cheese": "food made from pressed curds of milk",
    "desert": "dry, barren region with little rain",
    "engine": "machine that turns fuel into motion",
    "flute": "woodwind instrument held sideways",
    "honey": "sweet syrup made by bees",
    "knife": "blade with a handle, for cutting",
    "lizard": "small scaly reptile with four legs and a tail",
    "mirror": "glass that reflects an image",
    "onion": "layered bulb that makes the cook's eyes water",
    "piano": "large keyboard instrument with hammers and strings",
    "quartz": "hard, glassy crystal mineral",
    "ribbon": "narrow strip of fabric used for tying",
    "rocket": "vehicle driven upward by a jet of hot gas",
    "tiger": "large striped wild cat",
    "tomato": "juicy red fruit eaten as a vegetable",
    "camel": "humped animal of the desert",
    "zebra": "striped wild relative of the horse",
    "otter": "playful river mammal with webbed feet",
    "badger": "burrowing animal with a striped face",
    "beetle": "insect with hard wing cases",
    "cherry": "small round red fruit with a stone",
    "circus": "travelling show of acrobats and clowns",
    "donkey": "long-eared beast of burden",
    "helmet": "hard protective covering for the head",
    "marble": "polished stone used for statues; also a glass ball in a game",
    "napkin": "cloth for wiping the mouth at table",
    "riddle": "puzzling question with a clever answer",
    "sailor": "person who works aboard a ship",
    "thread": "fine strand used in sewing",
    "throne": "ceremonial chair of a monarch",
    "valley": "low land lying between hills",
    "wallet": "small flat case for money and cards",
    "walnut": "wrinkled nut in a hard shell",
    # 7-8 letters
    "blanket": "warm woollen bed covering",
    "captain": "person in command of a ship",
    "compass": "instrument whose needle points north",
    "cottage": "small house in the country",
    "diamond": "hardest of all gemstones",
    "dolphin": "intelligent marine mammal with a beak-like snout",
    "feather": "one of the light shafts that cover a bird",
    "fortune": "great wealth, or the luck that brings it",
    "giraffe": "tallest animal, with a very long neck",
    "glacier": "slow river of ice",
    "harvest": "gathering in of ripe crops",
    "iceberg": "floating mountain of ice",
    "journey": "act of travelling from one place to another",
    "kitchen": "room where meals are cooked",
    "lantern": "portable lamp with a protective case",
    "library": "building from which books are lent",
    "machine": "apparatus that uses power to do work",
    "mustard": "hot yellow paste made from seeds",
    "octopus": "sea creature with eight arms",
    "orchard": "planting of fruit trees",
    "panther": "black leopard",
    "penguin": "flightless seabird of the far south",
    "pilgrim": "traveller bound for a holy place",
    "pyramid": "ancient stone tomb with a square base",
    "rainbow": "arc of colours seen after rain",
    "soldier": "member of an army",
    "spinach": "leafy green vegetable",
    "thunder": "loud rumble that follows lightning",
    "trumpet": "brass instrument with three valves",
    "vampire": "blood-drinking creature of legend",
    "volcano": "mountain that erupts molten rock",
    "costume": "outfit worn to look like someone else",
    "chimney": "vertical pipe that carries smoke away",
    "dungeon": "dark underground prison in a castle",
    "emerald": "bright green gemstone",
    "gondola": "long flat boat of Venice",
    "lobster": "shellfish with large claws",
    "monarch": "reigning king or queen",
    "cupboard": "cabinet with shelves for dishes",
    "dinosaur": "extinct prehistoric reptile",
    "elephant": "largest land animal, with a trunk",
    "festival": "day or season of celebration",
    "flamingo": "pink wading bird that stands on one leg",
    "hedgehog": "small nocturnal mammal covered in spines",
    "mountain": "very high natural rise of the land",
    "necklace": "jewellery worn around the throat",
    "notebook": "book of blank pages for jotting things down",
    "sapphire": "precious blue gemstone",
    "scorpion": "arachnid with a venomous tail",
    "squirrel": "bushy-tailed rodent that lives in trees",
    "umbrella": "folding canopy carried against the rain",
    "vineyard": "plantation of grapevines",
    "windmill": "building whose sails turn to grind grain",
    "treasure": "hoard of gold and jewels",
    "tortoise": "slow land reptile with a domed shell",
    "mushroom": "fungus with a cap and a stem",
    "magician": "performer of conjuring tricks",
    "calendar": "chart of the days and months of a year",
    "champion": "winner of a contest",
    "passport": "official document for travel abroad",
    "reindeer": "antlered deer of the arctic that pulls sleds",
    "skeleton": "framework of bones",
    "tapestry": "woven picture hung on a wall",
    "kangaroo": "hopping marsupial with a pouch",
    "mosquito": "small biting insect that hums",
    "cucumber": "long green vegetable used in salads",
    "wardrobe": "tall cupboard for hanging clothes",
    "pendulum": "swinging weight that regulates a clock",
    # 9-10 letters
    "astronaut": "person trained to travel into space",
    "butterfly": "insect with large, colourful wings",
    "chocolate": "sweet food made from roasted cocoa",
    "crocodile": "large river reptile with powerful jaws",
    "detective": "investigator who solves crimes",
    "fireplace": "hearth built into the wall of a room",
    "hurricane": "violent tropical storm",
    "nightmare": "frightening dream",
    "pineapple": "tropical fruit with spiky skin and a leafy crown",
    "scarecrow": "figure set in a field to frighten birds",
    "sunflower": "tall plant with a huge yellow flower head",
    "telescope": "instrument for viewing distant objects",
    "carpenter": "craftsman who works with wood",
    "dandelion": "yellow weed whose seeds float on fluffy heads",
    "ambulance": "vehicle that carries the sick or injured",
    "avalanche": "mass of snow sliding down a mountainside",
    "cathedral": "principal church of a diocese",
    "chameleon": "lizard that changes colour",
    "labyrinth": "maze of winding passages",
    "orchestra": "large group of musicians playing together",
    "parachute": "canopy that slows a fall through the air",
    "porcupine": "rodent covered with sharp quills",
    "sculpture": "three-dimensional work of art",
    "snowflake": "ice crystal drifting down from the sky",
    "submarine": "vessel that travels under the sea",
    "blueberry": "small dark fruit that grows on bushes",
    "jellyfish": "stinging, see-through sea creature",
    "passenger": "traveller carried in a vehicle",
    "tarantula": "large hairy spider",
    "xylophone": "instrument of wooden bars struck with mallets",
    "blacksmith": "craftsman who forges iron",
    "strawberry": "red fruit with its seeds on the outside",
    "earthquake": "violent shaking of the ground",
    "microscope": "instrument for seeing very tiny things",
    "playground": "outdoor area where children play",
    "typewriter": "machine for printing letters on paper by keys",
    "skyscraper": "extremely tall city building",
    "tournament": "series of contests for a prize",
    "tambourine": "small drum with jingling metal discs",
    "trampoline": "sheet on springs for bouncing",
    "lighthouse": "tower with a beacon that guides ships",
    "volunteer": "person who offers to work unpaid",
    "newspaper": "daily printed publication of news",
    "spaceship": "craft for travel beyond the sky",
}
# difficulty -> (word lengths, stray letters mixed into the pool)
LEVELS = {"easy": ((5, 6), 0), "medium": ((7, 8), 1), "hard": ((9, 10), 2)}
#: Look-alike words whose letters are mixed into every pool.
DECOYS = 4
STRAYS = "EEEAAIIOOUTTNNSSRRLLDDCMPHBGYKFW"
BOX_RE = re.compile(r"\\boxed\{([^{}]*)\}")


class ClueAnagramSolverEnv:
    def __init__(self, max_turns=2, difficulty="medium", **kwargs):
        self.max_turns = max_turns
        self.difficulty = difficulty if difficulty in LEVELS else "medium"
        self.rng = random.Random()
        self._answer = ""
        self.pool = []
        self.strays = []
        self._fitting = []
        self.turn = 0
        self.done = False

    def _fits(self, word, pool_count):
        return not (Counter(word.upper()) - pool_count)

    def reset(self, seed=None):
        self.rng = random.Random(seed)
        rng = self.rng
        lengths, nstray = LEVELS[self.difficulty]
        words = sorted(w for w in LEXICON if len(w) in lengths)
        # The pool spells the answer AND several look-alike decoys of the same length, so
        # matching letters alone (a dictionary anagram lookup) leaves many candidates:
        # only the definition picks the word.
        word = rng.choice(words)
        same = [w for w in words if w != word and len(w) == len(word)]
        decoys = rng.sample(same, min(DECOYS, len(same)))
        need = Counter(word.upper())
        for d in decoys:
            need = need | Counter(d.upper())
        strays = [rng.choice(STRAYS) for _ in range(nstray)]
        pool = sorted(need.elements()) + strays
        rng.shuffle(pool)
        pc = Counter(pool)
        self._fitting = sorted(w for w in words if len(w) == len(word) and self._fits(w, pc))
        self._answer = word
        self.pool = pool
        self.strays = strays
        self.turn = 0
        self.done = False
        return self._task() + "\nAnswer with the word as \\boxed{your word}.", {}

    def _task(self):
        n = len(self._answer)
        return ("ANAGRAM WITH A DEFINITION\n"
                f"Letter pool: {' '.join(self.pool)}\n"
                f"Definition: {LEXICON[self._answer]} ({n} letters)\n"
                f"The pool holds {len(self.pool)} letters. Several different {n}-letter words can be spelled from "
                "it; the answer is the one English word that matches the definition, each of its letters taken "
                f"from the pool (a letter may be used as often as it appears in the pool). You have "
                f"{self.max_turns} attempt(s).")

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {}
        self.turn += 1
        out = self.turn >= self.max_turns
        left = self.max_turns - self.turn
        m = BOX_RE.search(str(action)[:5000])
        if m is None:
            msg = "No answer found: put your word inside \\boxed{...}."
            return self._reply(msg, 0.0, out, False, left)
        guess = re.sub(r"[^a-z]", "", m.group(1).lower())
        if guess == self._answer:
            self.done = True
            return "Correct! That is the word.", 1.0, True, False, {}
        n = len(self._answer)
        if not guess:
            msg = "Your answer contains no letters."
        elif len(guess) != n:
            msg = f"'{guess[:30]}' has {len(guess)} letters; the word has {n}."
        else:
            missing = Counter(guess.upper()) - Counter(self.pool)
            if missing:
                over = ", ".join(f"{c} (x{k})" for c, k in sorted(missing.items()))
                msg = f"'{guess}' uses letters the pool cannot supply: {over}."
            else:
                msg = f"'{guess}' can be spelled from the pool but does not match the definition."
        return self._reply(msg, 0.0, out, False, left)

    def _reply(self, msg, reward, term, trunc, left):
        if term:
            self.done = True
            msg += " No attempts left."
        else:
            msg += f" Attempts left: {left}."
        return msg + "\n" + self._task(), reward, term, trunc, {}

    def solution(self):
        return self._answer

    def hint(self):
        others = [w for w in self._fitting if w != self._answer]
        named = sorted(random.Random(self._answer + "h").sample(others, min(2, len(others))))
        return ("Spelling alone does not decide it: " + " and ".join(w.upper() for w in named)
                + " can also be spelled from this pool and are NOT the answer. List the other words of the right "
                "length the pool allows, then keep the one the definition describes, word for word.")
