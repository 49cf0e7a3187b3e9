"""A learning agent trained on the engines and registered as a bot (docs/envs.md)."""
