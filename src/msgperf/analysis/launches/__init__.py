"""Launches: the launch as the unit of variation (intervals across launches, alignment, noise floor,
the machine's conditions during a launch)."""
