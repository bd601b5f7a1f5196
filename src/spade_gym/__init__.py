"""spade-gym: sandboxed, validated, Gymnasium-registered text environments written by LLMs."""

__version__ = "0.1.0"
