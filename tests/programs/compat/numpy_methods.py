"""Array methods and functions whose C code imports numpy helpers lazily (must work in the sandbox)."""
import numpy as np

class NpEnv:
    def __init__(self, max_turns=2, **kw):
        pass
    def reset(self, seed=None):
        a = np.arange(12, dtype=float).reshape(3, 4)
        b = np.array([[1, 2], [3, 4]])
        out = []
        for name in ["max", "min", "mean", "std", "var", "sum", "prod", "any", "all", "argmax", "argmin",
                     "cumsum", "cumprod", "round"]:
            try:
                out.append(str(getattr(a, name)()))
            except Exception as e:
                out.append(f"{name}: {type(e).__name__}: {e}")
        try:
            out.append(str(a.clip(1, 5).sum()))
            out.append(str(np.median(a)) + str(np.percentile(a, 50)) + str(np.linalg.inv(b.astype(float))))
            out.append(str(np.unique(a)) + str(np.sort(a, axis=0)) + str(a.T.dot(a).trace()))
            out.append(str(np.where(a > 3)) + str(np.argwhere(a > 5)) + str(np.nonzero(a)))
            out.append(str(a.astype(int).tolist()) + str(np.einsum('ij->j', a)) + str(np.histogram(a)[0]))
            out.append(str(np.random.default_rng(0).permutation(5)) + str(np.isclose(a, a).all()))
            out.append(str(np.array_equal(a, a)) + str(np.count_nonzero(a)) + str(np.diff(a).mean()))
            out.append(str(np.nanmax(a)) + str(np.average(a, weights=np.ones_like(a))) + str(np.cov(a)))
            out.append(str(np.polyfit([0,1,2],[1,3,5],1)) + str(np.convolve([1,2],[1,1])) + str(a.var(ddof=1)))
        except Exception as e:
            out.append(f"ERR {type(e).__name__}: {e}")
        return "\n".join(out), {}
    def solution(self):
        return "x"
    def step(self, action):
        return "o", 0.0, True, False, {}
