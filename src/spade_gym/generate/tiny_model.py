"""A tiny, randomly initialised chat model built offline in seconds.

The test-suite and the CPU self-play preset need *a* causal language model with a chat
template, but no weights can be downloaded there. :func:`build_tiny_model` trains a
byte-level BPE tokenizer on a few texts and pairs it with a freshly initialised
Qwen2-architecture model. Its output is gibberish; what matters is that every code path
(chat templating, sampling, token accounting, GRPO updates, checkpointing) runs for real.

The checkpoint uses the Qwen2 layout on purpose: ``AutoTokenizer`` maps it to the Qwen2
tokenizer class, which rebuilds its normaliser and pre-tokeniser from fixed settings.
The tokenizer is therefore trained with exactly those settings, so the ids seen at
training time and after loading are the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

#: Special tokens, in id order. ChatML turn markers; ``<|endoftext|>`` doubles as padding.
PAD_TOKEN = "<|endoftext|>"
IM_START = "<|im_start|>"
IM_END = "<|im_end|>"
SPECIAL_TOKENS = (PAD_TOKEN, IM_START, IM_END)

#: ChatML: ``<|im_start|>role\ncontent<|im_end|>\n`` per message, then the assistant header.
#: With ``tools`` it renders tool use the way Qwen2.5 does (a system turn listing the
#: schemas in ``<tools>``, calls as ``<tool_call>`` JSON, results as ``<tool_response>``),
#: so tool-use episodes run through the same code paths as with a real Qwen checkpoint.
#: Without tools the rendering is plain ChatML, unchanged.
CHAT_TEMPLATE = (
    "{% if tools %}"
    "{{ '<|im_start|>system\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>' }}"
    "{% for tool in tools %}{{ '\n' + (tool | tojson) }}{% endfor %}"
    "{{ '\n</tools>\n\nFor each function call, return a json object with function name and arguments "
    "within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": "
    "<args-json-object>}\n</tool_call><|im_end|>\n' }}"
    "{% endif %}"
    "{% for message in messages %}"
    "{% if message['role'] == 'tool' %}"
    "{{ '<|im_start|>user\n<tool_response>\n' + message['content'] + '\n</tool_response><|im_end|>\n' }}"
    "{% elif message.get('tool_calls') %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + (message['content'] or '') }}"
    "{% for call in message['tool_calls'] %}"
    "{{ '\n<tool_call>\n{\"name\": \"' + call['function']['name'] + '\", \"arguments\": ' "
    "+ (call['function']['arguments'] | tojson) + '}\n</tool_call>' }}"
    "{% endfor %}"
    "{{ '<|im_end|>\n' }}"
    "{% else %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

# How the Qwen2 tokenizer class splits text before byte-level BPE (see module docstring).
_SPLIT_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def build_tiny_model(
    output_dir: str | Path,
    texts: Sequence[str],
    *,
    vocab_size: int = 2048,
    hidden_size: int = 64,
    num_layers: int = 2,
    num_heads: int = 4,
    max_position_embeddings: int = 2048,
    seed: int = 0,
) -> Path:
    """Build and save a tiny chat model; return ``output_dir``.

    ``texts`` train the tokenizer's merges (any text can still be encoded: the byte
    alphabet is always included; ``vocab_size`` is an upper bound that small corpora do
    not reach). The model's weights come from ``seed`` and do not disturb the global
    torch random state. The directory loads with ``AutoTokenizer`` /
    ``AutoModelForCausalLM`` (and so with :class:`~spade_gym.generate.backends.TransformersBackend`
    and TRL), with eos ``<|im_end|>`` and pad ``<|endoftext|>``.
    """
    import torch
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    if hidden_size % num_heads:
        raise ValueError(
            f"hidden_size ({hidden_size}) must be a multiple of num_heads ({num_heads})")
    if vocab_size < 256 + len(SPECIAL_TOKENS):
        raise ValueError(f"vocab_size must be at least {256 + len(SPECIAL_TOKENS)} "
                         "(the byte alphabet plus the special tokens)")
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)

    bpe = Tokenizer(models.BPE())
    bpe.normalizer = normalizers.NFC()
    bpe.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(_SPLIT_PATTERN), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(list(texts), trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe, eos_token=IM_END, pad_token=PAD_TOKEN, unk_token=None,
        additional_special_tokens=[IM_START],
    )
    tokenizer.chat_template = CHAT_TEMPLATE

    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=4 * hidden_size,
        num_hidden_layers=num_layers,
        num_attention_heads=num_heads,
        num_key_value_heads=num_heads,
        max_position_embeddings=max_position_embeddings,
        tie_word_embeddings=True,
        bos_token_id=None,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = Qwen2ForCausalLM(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.save_pretrained(output_dir)
    tokenizer.save_pretrained(output_dir)
    return output_dir
