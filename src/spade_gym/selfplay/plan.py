"""What one self-play iteration costs, before the first GPU hour (``spade-gym selfplay --plan``).

Pure arithmetic on the configuration and stated assumptions
(:mod:`~spade_gym.selfplay.plan_assumptions`): no torch, no model download.
Every count is global (all ranks), as the batch is (:mod:`~spade_gym.selfplay.batch`).
The formulas, also in docs/selfplay.md ("Planning a run"):

**Work.** Designs: ``designer_groups x G``, each ``program_fill x max_program_tokens``
generated tokens (Qwen3 thinks before it writes: the cap is the realistic length). Valid
designs: ``valid_fraction`` of them; each is played ``paired_seeds`` times with and
without its hint. Agent tasks: ``agent_groups``, the first ``min(valid, agent_groups)`` of
them the regret plays' no-hint groups (when they are trained), the rest pool tasks of G
episodes. An episode is ``turns`` turns (default: ``max_turns``, the worst case) of
``turn_fill x max_turn_tokens`` generated tokens (thinking included; capped by
``max_episode_tokens`` per sample).

**Generation time**, per phase (design, regret plays, task plays; the loop runs them one
after another): ``max(tokens / (tokens_per_s x generation GPUs), latency)``. Latency: the
episodes of a rank play in lock-step turns, ``play_concurrency`` at a time, so a phase
takes at least ``waves x turns x max_turn_tokens / seq_tokens_per_s`` (a turn ends when
its longest reply does); a design phase at least ``max_program_tokens / seq_tokens_per_s``.
Server mode: the ranks share the ``vllm_gpus`` server GPUs; colocate: every training GPU
generates its own rank's share (the busiest rank decides).

**Training time**: ``sum over samples of (tokens x forward FLOPs per token) x passes /
(training GPUs x gpu_flops x mfu)``. Forward FLOPs per token ``2 x active parameters +
2 x layers x attention width x sample length`` (causal attention); passes: 3 (forward and
backward) + 1 (gradient checkpointing's recompute) + 1 (TRL's old log-probabilities, for the
vLLM importance correction) + 1 (the reference model, when ``beta > 0``). A sample's
tokens are its own length when micro-batches hold one sample (the trainer trims each
micro-batch to its longest row, :mod:`~spade_gym.selfplay.trainer`), else the padded width.

**Peak memory per training device**: ``state + gathered + activations + overhead``:

* state: ``P x 16 bytes / S`` (weights, gradients, Adam's two fp32 moments and fp32
  master weights: about 16 bytes a parameter with bf16 compute; S = the training ranks
  under ``sharding=zero3``, else 1); with ``zero3-offload`` ``P x 4 / S`` on the GPU (bf16
  weights and gradients; Adam's 12 bytes in host memory, ``P x 12 / S`` per rank); plus
  the reference model when ``beta > 0``, ``P x 4`` unsharded, ``P x 2 / S`` sharded;
* gathered (zero3 only): ``2 bytes x (2 decoder layers + embedding + LM head)``: the bf16
  layer in use, the one prefetched, and the vocabulary matrices gathered whole;
* activations for one micro-batch of T tokens (T = micro-batch size x padded length):
  with gradient checkpointing ``T x hidden x 2 bytes x layers`` (each layer's input, bf16)
  ``+ T x 2 bytes x (6 x hidden + 4 x MLP width)`` (one layer recomputed; the MLP width of
  an MoE layer is ``experts per token x expert width``) ``+ T x hidden x 4 bytes`` (the
  fused LM head's fp32 input); without it every layer's ``6 x hidden + 4 x MLP width``;
* overhead: 10% + 2 GB (CUDA context, allocator fragmentation).

The vLLM server GPU holds its share of the bf16 weights (``P x 2 / vllm_tensor_parallel``)
and a KV cache of ``2 x layers x KV heads x head dim x 2 bytes / vllm_tensor_parallel``
per token; the plan reports how many sequences of the longest sample fit. With
``zero3-offload`` the optimizer step runs on the host: ``P / S / cpu_adam_params_per_s``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from spade_gym.errors import ConfigError
from spade_gym.selfplay.batch import assign_regret_plays, batch_layout
from spade_gym.selfplay.plan_assumptions import Assumptions, parse_assumptions
from spade_gym.selfplay.plan_models import KNOWN_MODELS, ModelShape, model_shape

__all__ = ["KNOWN_MODELS", "Assumptions", "ModelShape", "Plan", "RolePlan", "format_plan", "model_shape",
           "parse_assumptions", "plan_iteration"]

GB = 1e9


def format_plan(plan: Plan) -> str:
    """The plan as the CLI prints it (:mod:`~spade_gym.selfplay.plan_format`)."""
    from spade_gym.selfplay.plan_format import format_plan as format_

    return format_(plan)


@dataclass
class RolePlan:
    role: str
    prompts: float  # generation requests (a design prompt's G samples are G requests; a turn is one)
    episodes: float
    samples: float  # training samples
    tokens_generated: float
    tokens_trained: float  # the samples' tokens as the trainer computes them (prompt + completion)


@dataclass
class Plan:
    preset: str
    model: str
    params: int
    active_params: int
    gpus: int
    vllm_gpus: int
    train_ranks: int
    mode: str
    sharding: str
    assumptions: dict
    roles: list[RolePlan]
    samples_per_step: int
    padding_samples: int
    micro_batch: int
    padded_length: int
    generation_s: dict
    validation_s: float
    sync_s: float
    training_s: float
    optimizer_s: float
    memory_gb: dict
    vllm_memory_gb: dict
    notes: list[str] = field(default_factory=list)
    #: ``design_every``, and the time of an iteration between design rounds (None when every one designs).
    design_every: int = 1
    between_s: float | None = None
    #: Micro-batches (forward and backward passes) per rank and optimizer step.
    micro_batches: int = 1

    @property
    def iteration_s(self) -> float:
        """A design iteration (the plan's tables)."""
        return sum(self.generation_s.values()) + self.validation_s + self.sync_s + self.training_s + self.optimizer_s

    @property
    def mean_iteration_s(self) -> float:
        """Over a cycle of ``design_every`` iterations: one that designs, the others that do not."""
        if self.between_s is None:
            return self.iteration_s
        return (self.iteration_s + (self.design_every - 1) * self.between_s) / self.design_every

    @property
    def fits(self) -> bool:
        return self.memory_gb["peak"] <= self.assumptions["gpu_memory_gb"] and \
            (not self.vllm_memory_gb or self.vllm_memory_gb["sequences_at_longest"] >= 1)

    def to_dict(self) -> dict:
        out = asdict(self)
        out["iteration_s"] = round(self.iteration_s, 1)
        out["mean_iteration_s"] = round(self.mean_iteration_s, 1)
        out["fits"] = self.fits
        return out


def plan_iteration(config, *, gpus: int, vllm_gpus: int | None = None,
                   assumptions: Assumptions | None = None, designing: bool = True) -> Plan:
    """The cost of one iteration of ``config`` on ``gpus`` GPUs (see the module docstring): one
    that designs; with ``design_every > 1`` the plan also gives an iteration between design
    rounds (``between_s``: no designs, no validation, no regret plays, every agent task from
    the pool) and the mean over a cycle. ``designing=False`` plans such an iteration alone."""
    a = assumptions or Assumptions()
    shape = model_shape(config)
    grpo = config.grpo
    use_vllm = bool(grpo.get("use_vllm"))
    mode = str(grpo.get("vllm_mode", "server")) if use_vllm else "transformers"
    if vllm_gpus is None:
        vllm_gpus = config.vllm_gpus if mode == "server" else 0
    tp = config.vllm_tensor_parallel if mode == "server" else 1
    if mode != "server" and vllm_gpus:
        raise ConfigError(f"--vllm-gpus is for vllm_mode=server; this config generates with {mode}")
    train_ranks = gpus - vllm_gpus
    if gpus < 1 or train_ranks < 1:
        raise ConfigError(f"--gpus {gpus} leaves no GPU for training after {vllm_gpus} for the vLLM server")
    if mode == "server" and vllm_gpus < 1:
        raise ConfigError("vllm_mode=server needs at least one GPU for `trl vllm-serve` (--vllm-gpus)")
    config.check_ranks(train_ranks)
    layout = batch_layout(config, train_ranks)
    G = config.num_generations
    per_task = config.turn_samples if config.sample_unit == "turn" else 1
    served = config.designer != "policy"
    turns = float(a.turns if a.turns is not None else config.max_turns)
    turns = min(turns, float(config.max_turns))
    reply = a.turn_fill * config.max_turn_tokens

    # --- designs (none between design rounds: their slots are padding then)
    n_designs = config.designer_groups * G if designing else 0
    program = a.program_fill * config.max_program_tokens
    designer = RolePlan("designer", prompts=n_designs, episodes=0, samples=0 if served else n_designs,
                        tokens_generated=0 if served else n_designs * program,
                        tokens_trained=0 if served else n_designs * (a.design_prompt_tokens + program))
    # self-hint: a second generation per design, prompted with its program; not trained
    hint = a.hint_fill * config.self_hint_max_tokens
    hints = RolePlan("designer: hints", prompts=n_designs, episodes=0, samples=0, tokens_generated=n_designs * hint,
                     tokens_trained=0) if config.self_hint else None

    # --- one episode: generated tokens, and its training samples' tokens
    if config.sample_unit == "turn":
        prompts = [min(a.first_prompt_tokens + t * (a.feedback_tokens + a.visible_reply_tokens),
                       config.max_episode_tokens - 1) for t in range(math.ceil(turns))]
        replies = [min(reply, config.max_episode_tokens - p) for p in prompts]
        episode_tokens = sum(replies) * (turns / max(1, len(prompts)))
        # turn_samples of its turns, drawn uniformly (padding where it has fewer): the mean turn
        trained_turns = min(per_task, turns)
        sample_tokens = sum(p + r for p, r in zip(prompts, replies)) / len(prompts) if prompts else 0.0
        episode_trained = trained_turns * sample_tokens
        longest_agent = max((p + r for p, r in zip(prompts, replies)), default=0)
        agent_prompt_max = max(prompts, default=0)
        agent_completion_max = config.max_turn_tokens
    else:
        episode_tokens = min(turns * reply, float(config.max_episode_tokens))
        episode_trained = a.first_prompt_tokens + min(turns * (reply + a.feedback_tokens),
                                                      float(config.max_episode_tokens))
        longest_agent = a.first_prompt_tokens + config.max_episode_tokens
        agent_prompt_max = a.first_prompt_tokens
        agent_completion_max = config.max_episode_tokens

    valid = a.valid_fraction * n_designs
    K = config.paired_seeds
    # a share of the agent's tasks always comes from the pool (pool_task_share, of all ranks' tasks)
    room = sum(s.regret_capacity for s in layout.shares)
    trained_regret = min(valid, room) if config.regret_plays_trained else 0.0
    regret = RolePlan("agent: regret plays", prompts=2 * valid * K * turns, episodes=2 * valid * K,
                      samples=trained_regret * G * per_task, tokens_generated=2 * valid * K * episode_tokens,
                      tokens_trained=trained_regret * G * episode_trained)
    pool_tasks = config.agent_groups - trained_regret
    tasks = RolePlan("agent: task plays", prompts=pool_tasks * G * turns, episodes=pool_tasks * G,
                     samples=pool_tasks * G * per_task, tokens_generated=pool_tasks * G * episode_tokens,
                     tokens_trained=pool_tasks * G * episode_trained)
    roles = [designer, *([hints] if hints else []), regret, tasks]

    # --- per-rank shares (the busiest rank sets the latency and, colocated, the throughput)
    design_ranks = [s.design_groups * G if designing else 0 for s in layout.shares]
    n_valid = round(valid)
    owners = [r for r, s in enumerate(layout.shares) for _ in range(s.design_groups * G)][:n_valid]
    capacities = [s.regret_capacity for s in layout.shares]
    regret_plan = assign_regret_plays([(f"d{i}", K) for i in range(len(owners))], capacities,
                                      whole_groups=config.regret_plays_trained)
    regret_ranks = [len(p) for p in regret_plan]
    given = [len({e for e, arm, _ in p if not arm}) for p in regret_plan] if config.regret_plays_trained \
        else [0] * train_ranks
    pool_ranks = [max(0, s.agent_tasks - g) * G for s, g in zip(layout.shares, given)]

    def phase(total_tokens: float, per_rank: list[float], latency: float) -> float:
        if total_tokens <= 0:
            return 0.0
        if mode == "server":
            throughput = total_tokens / (a.tokens_per_s * vllm_gpus)
        else:
            throughput = max(per_rank) / a.tokens_per_s
        return max(throughput, latency)

    turn_latency = turns * config.max_turn_tokens / a.seq_tokens_per_s

    def waves(counts: list[int]) -> int:
        return max((math.ceil(c / config.play_concurrency) for c in counts), default=0)

    generation = {
        "design": phase(designer.tokens_generated + (n_designs * program if served else 0),
                        [d * program for d in design_ranks],
                        config.max_program_tokens / a.seq_tokens_per_s if n_designs else 0.0) if not served else 0.0,
        "regret plays": phase(regret.tokens_generated, [c * episode_tokens for c in regret_ranks],
                              waves(regret_ranks) * turn_latency),
        "task plays": phase(tasks.tokens_generated, [c * episode_tokens for c in pool_ranks],
                            waves(pool_ranks) * turn_latency),
    }
    if hints is not None:
        generation["hints"] = phase(hints.tokens_generated, [d * hint for d in design_ranks],
                                    config.self_hint_max_tokens / a.seq_tokens_per_s if n_designs else 0.0)
    validation = math.ceil(max(design_ranks) / a.validate_workers) * a.validate_s if n_designs else 0.0
    sync = shape.params * 2 / (a.sync_gb_per_s * GB) if mode == "server" else 0.0

    # --- training
    micro = config.micro_batch_rows(layout.slots_per_rank)
    micro_batches = layout.slots_per_rank // micro
    budget = config.micro_batch_tokens
    # Rows at their own length: one per micro-batch (trimmed), packed by length under a budget, or packed.
    own_length = micro == 1 or budget is not None or config.padding_free
    prompt_max = max(a.design_prompt_tokens if not served and n_designs else 0, agent_prompt_max)
    completion_max = max(config.max_program_tokens if not served and n_designs else 0, agent_completion_max)
    padded_width = prompt_max + completion_max
    longest = max(a.design_prompt_tokens + config.max_program_tokens if not served and n_designs else 0,
                  longest_agent)
    # One sample per micro-batch: the trainer trims it to its own length; else TRL's padded width.
    padded_length = longest if own_length else padded_width
    passes = 3 + (1 if grpo.get("gradient_checkpointing") else 0) + (1 if use_vllm else 0) + \
        (1 if config.beta else 0)
    q_dim = shape.heads * shape.head_dim

    def flops(tokens: float, length: float) -> float:
        return tokens * (2 * shape.active_params + 2 * shape.layers * q_dim * length)

    if own_length:
        work = flops(designer.tokens_trained, a.design_prompt_tokens + program) + \
            sum(flops(r.tokens_trained, longest_agent) for r in (regret, tasks))
    else:
        work = flops(layout.trained_slots * padded_width, padded_width)
    training = work * passes / (train_ranks * a.gpu_flops * a.mfu)

    # --- memory per training device
    sharded = config.sharding in ("zero3", "zero3-offload")
    shards = train_ranks if sharded else 1
    state = shape.params * (4 if config.sharding == "zero3-offload" else 16) / shards
    if config.beta:
        state += shape.params * (2 / shards if sharded else 4)
    gathered = 2 * (2 * shape.layer_params + shape.embedding_params) if sharded else 0
    optimizer = shape.params / shards / a.cpu_adam_params_per_s if config.sharding == "zero3-offload" else 0.0
    rank_tokens = sum(r.tokens_trained for r in roles) / train_ranks
    if budget is not None:
        # The packer holds each micro-batch to the budget where the rank's tokens fit its
        # micro-batches; a sample longer than the budget, or too many tokens, exceed it.
        T = max(budget, longest, math.ceil(rank_tokens / micro_batches))
    else:
        T = micro * padded_length  # TRL's random micro-batches: at worst each row as wide as the widest
    layer = T * 2 * (6 * shape.hidden + 4 * shape.mlp_width)
    if grpo.get("gradient_checkpointing"):
        activations = T * shape.hidden * 2 * shape.layers + layer + T * shape.hidden * 4
    else:
        activations = shape.layers * layer + T * shape.hidden * 4
    attention = _attention_bytes(config, shape, T, padded_length)
    activations += attention
    subtotal = state + gathered + activations
    peak = subtotal * 1.1 + 2 * GB
    memory = {"state": state / GB, "gathered": gathered / GB, "activations": activations / GB, "peak": peak / GB,
              "micro_batch_tokens": T, "attention": attention / GB, "budget": budget,
              "host_per_rank": shape.params * 12 / shards / GB if config.sharding == "zero3-offload" else 0.0}
    vllm_memory = {}
    if mode in ("server", "colocate"):
        weights = shape.params * 2 / tp
        kv_room = a.gpu_memory_gb * GB * a.vllm_memory_fraction - weights - 2 * GB
        kv_tokens = max(0.0, kv_room) / (shape.kv_bytes_per_token / tp)
        vllm_memory = {"weights": weights / GB, "kv_cache": max(0.0, kv_room) / GB, "kv_tokens": int(kv_tokens),
                       "sequences_at_longest": int(kv_tokens // max(1, longest))}
    notes = []
    if layout.padding_slots:
        notes.append(f"{layout.padding_slots} of {layout.slots} slots are padding (the groups do not divide evenly "
                     f"over {train_ranks} ranks; padding is masked and costs no generation)")
    if mode == "server" and vllm_gpus % tp:
        raise ConfigError(f"{vllm_gpus} vLLM GPU(s) do not divide into tensor-parallel engines of {tp}")
    if vllm_memory and vllm_memory["sequences_at_longest"] < 1:
        notes.append("the vLLM GPU has no room for one sequence of the longest sample: raise vllm_tensor_parallel")
    if config.sharding == "zero3-offload":
        notes.append(f"Adam's state in host memory: {memory['host_per_rank']:.0f} GB per rank")
    if mode == "colocate" and vllm_memory:
        notes.append("colocated: vLLM and training share each GPU (vLLM sleeps during the update)")
    if micro > 1 and not own_length:
        notes.append(f"micro-batches of {micro} are padded to the batch's widest prompt + completion "
                     f"({padded_width:,} tokens); per_device_train_batch_size=1 or micro_batch_tokens trains each "
                     "sample at its own length")
    if budget is not None:
        notes.append(f"micro_batch_tokens={budget:,}: {micro_batches} micro-batch(es) per rank, rows packed by length "
                     f"(~{rank_tokens:,.0f} trained tokens a rank)" + (
                         f"; the longest sample ({longest:,}) exceeds the budget" if longest > budget else "") + (
                         "; the rank's tokens do not fit that many micro-batches at the budget: lower "
                         "grpo.per_device_train_batch_size" if rank_tokens > budget * micro_batches else ""))
    if config.padding_free and _flash(config) is False:
        notes.append("padding_free without flash attention: each packed pass builds a (tokens)^2 mask "
                     f"({attention / GB:.1f} GB at {T:,} tokens); set attn_implementation=auto or flash_attention_2")
    if config.self_hint:
        notes.append(f"self_hint: {n_designs:,} hints of up to {config.self_hint_max_tokens:,} tokens, written after "
                     "the designs (not trained)")
    return Plan(preset=config.preset, model=shape.name, params=shape.params, active_params=shape.active_params,
                gpus=gpus, vllm_gpus=vllm_gpus, train_ranks=train_ranks, mode=mode, sharding=config.sharding,
                assumptions=asdict(a),
                roles=roles, samples_per_step=layout.slots, padding_samples=layout.padding_slots, micro_batch=micro,
                padded_length=padded_length, generation_s=generation, validation_s=validation, sync_s=sync,
                training_s=training, optimizer_s=optimizer, memory_gb=memory, vllm_memory_gb=vllm_memory,
                notes=notes, design_every=config.design_every, micro_batches=micro_batches,
                between_s=plan_iteration(config, gpus=gpus, vllm_gpus=vllm_gpus, assumptions=a,
                                         designing=False).iteration_s
                if designing and config.design_every > 1 else None)


def _flash(config) -> bool:
    """Whether the policy's attention runs variable-length kernels (no (tokens)^2 tensor):
    flash attention by name, a hub kernel, or "auto" (flash where it is installed: assumed)."""
    name = config.attn_implementation
    return name is not None and (name == "auto" or name.startswith("flash_attention") or "/" in name)


def _attention_bytes(config, shape: ModelShape, tokens: int, length: int) -> float:
    """What attention holds beyond the activations above, for one micro-batch of ``tokens``
    tokens in rows of ``length``: nothing with flash attention or sdpa's fused kernels; with
    ``eager`` the scores and probabilities of the layer being computed (bf16, every head); a
    packed pass without flash attention, its block-diagonal mask (1 byte a token pair)."""
    if _flash(config):
        return 0.0
    rows = max(1, tokens // max(1, length))
    if config.padding_free:
        mask = float(tokens) ** 2
        return mask + (shape.heads * float(tokens) ** 2 * 4 if config.attn_implementation == "eager" else 0.0)
    if config.attn_implementation == "eager":
        return rows * shape.heads * float(length) ** 2 * 4
    return 0.0
