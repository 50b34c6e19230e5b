"""Tables: what a run's patterns show side by side (sizes, eager limit, buffering, combining,
contention, placement, the machine)."""
