"""The model shapes ``--plan`` (:mod:`~spade_gym.selfplay.plan`) computes with. No torch here."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from spade_gym.errors import ConfigError


@dataclass(frozen=True)
class ModelShape:
    """What the arithmetic needs of a decoder-only transformer (dense or mixture-of-experts)."""

    name: str
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    #: Dense MLP width (0 for an MoE model).
    intermediate: int = 0
    tied_embeddings: bool = False
    experts: int = 0
    experts_per_token: int = 0
    expert_intermediate: int = 0

    @property
    def attention_params(self) -> int:
        q = self.heads * self.head_dim
        kv = self.kv_heads * self.head_dim
        return self.hidden * q + 2 * self.hidden * kv + q * self.hidden

    @property
    def mlp_params(self) -> int:
        if self.experts:
            return self.experts * 3 * self.hidden * self.expert_intermediate + self.hidden * self.experts
        return 3 * self.hidden * self.intermediate

    @property
    def active_mlp_params(self) -> int:
        if self.experts:
            return self.experts_per_token * 3 * self.hidden * self.expert_intermediate + self.hidden * self.experts
        return self.mlp_params

    @property
    def layer_params(self) -> int:
        return self.attention_params + self.mlp_params

    @property
    def embedding_params(self) -> int:
        return self.vocab * self.hidden * (1 if self.tied_embeddings else 2)

    @property
    def params(self) -> int:
        return self.layers * self.layer_params + self.embedding_params

    @property
    def active_params(self) -> int:
        return self.layers * (self.attention_params + self.active_mlp_params) + self.embedding_params

    @property
    def mlp_width(self) -> int:
        """Activation width of one token's MLP (the experts it is routed to, for MoE)."""
        return self.experts_per_token * self.expert_intermediate if self.experts else self.intermediate

    @property
    def kv_bytes_per_token(self) -> int:
        return 2 * self.layers * self.kv_heads * self.head_dim * 2  # K and V, bf16


#: Shapes from the checkpoints' config.json (Hugging Face hub).
KNOWN_MODELS = {
    "Qwen/Qwen3-4B": ModelShape("Qwen/Qwen3-4B", hidden=2560, layers=36, heads=32, kv_heads=8, head_dim=128,
                                vocab=151936, intermediate=9728, tied_embeddings=True),
    "Qwen/Qwen3-8B": ModelShape("Qwen/Qwen3-8B", hidden=4096, layers=36, heads=32, kv_heads=8, head_dim=128,
                                vocab=151936, intermediate=12288),
    "Qwen/Qwen3-30B-A3B": ModelShape("Qwen/Qwen3-30B-A3B", hidden=2048, layers=48, heads=32, kv_heads=4,
                                     head_dim=128, vocab=151936, experts=128, experts_per_token=8,
                                     expert_intermediate=768),
}


def model_shape(config) -> ModelShape:
    """The shape of ``config.model``: the tiny model's from its config, a known checkpoint's
    from :data:`KNOWN_MODELS`, a local checkpoint's from its config.json."""
    if config.model == "tiny":
        t = config.tiny
        return ModelShape("tiny", hidden=t.hidden_size, layers=t.num_layers, heads=t.num_heads, kv_heads=t.num_heads,
                          head_dim=t.hidden_size // t.num_heads, vocab=t.vocab_size, intermediate=4 * t.hidden_size)
    if config.model in KNOWN_MODELS:
        return KNOWN_MODELS[config.model]
    path = Path(config.model) / "config.json"
    if path.is_file():
        c = json.loads(path.read_text())
        heads = int(c["num_attention_heads"])
        return ModelShape(
            str(config.model), hidden=int(c["hidden_size"]), layers=int(c["num_hidden_layers"]), heads=heads,
            kv_heads=int(c.get("num_key_value_heads", heads)),
            head_dim=int(c.get("head_dim") or c["hidden_size"] // heads), vocab=int(c["vocab_size"]),
            intermediate=int(c.get("intermediate_size", 0)), tied_embeddings=bool(c.get("tie_word_embeddings")),
            experts=int(c.get("num_experts", 0) or 0), experts_per_token=int(c.get("num_experts_per_tok", 0) or 0),
            expert_intermediate=int(c.get("moe_intermediate_size", 0) or 0))
    raise ConfigError(f"--plan knows no shape for model {config.model!r}: use one of {', '.join(KNOWN_MODELS)}, "
                      "or a local checkpoint directory with its config.json")
