"""Uses the reference loader's injected names without importing them."""
import datetime


class Point(namedtuple("Point", "x y")):
    def shifted(self, dx):
        return self._replace(x=self.x + dx)


class WalkerEnv:
    def __init__(self, max_turns=12, **kwargs):
        self.max_turns = max_turns
        self.turn_count = 0
        self.__secret = None
        self.pos = Point(0, 0)
        self.reset()

    def reset(self, seed=None):
        random.seed(seed)
        self.turn_count = 0
        self.pos = Point(0, 0)
        self.__secret = Point(random.randint(1, 3) * random.choice((-1, 1)), random.randint(-3, 3))
        self.trail = deque(maxlen=3)
        self.visits = Counter()
        self.edges = defaultdict(list)
        combos = list(combinations(range(4), 2))
        perms = len(list(permutations("abc")))
        arr = np.arange(4) * random.randint(1, 5)
        stamp = datetime.date(2024, 1, 1) + datetime.timedelta(days=random.randint(0, 30))
        obs = (f"Find the hidden cell. Moves: \\boxed{{north}}, \\boxed{{south}}, \\boxed{{east}}, \\boxed{{west}}. "
               f"({len(combos)} {perms} {arr.tolist()} {stamp.isoformat()} {type(self).__name__})")
        return obs, {}

    def _distance(self):
        return abs(self.pos.x - self.__secret.x) + abs(self.pos.y - self.__secret.y)

    def solution(self):
        s = self.__secret
        if self.pos.x < s.x:
            return "east"
        if self.pos.x > s.x:
            return "west"
        if self.pos.y < s.y:
            return "north"
        return "south"

    def step(self, action):
        self.turn_count += 1
        m = re.search(r"\\boxed\{(\w{1,20})\}", action)
        move = m.group(1).lower() if m else ""
        dx, dy = {"north": (0, 1), "south": (0, -1), "east": (1, 0), "west": (-1, 0)}.get(move, (0, 0))
        self.pos = self.pos.shifted(dx)._replace(y=self.pos.y + dy)
        self.trail.append(move)
        self.visits[self.pos] += 1
        self.edges[move].append(self.turn_count)
        if self._distance() == 0:
            return "Found it!", 1.0, True, False, {}
        return (f"Distance now {self._distance()}. Trail {list(self.trail)}.", 0.0, False,
                self.turn_count >= self.max_turns, {"d": self._distance()})


if __name__ == "__main__":
    env = WalkerEnv()
    print(env.reset(seed=1))
