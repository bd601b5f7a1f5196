"""Adapters that let other training libraries use spade-gym environments (TRL: ``spade_gym.integrations.trl``)."""
