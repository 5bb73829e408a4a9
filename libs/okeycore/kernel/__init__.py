"""The table kernel: what both games share (phase, seats, turns, dealing as data, timers,
autopilot, take-back, the shared views and the one dispatcher); each game adds its own rules.

``events`` and ``commands`` the kernel's own; ``state`` the shared state; ``table`` the checks,
the kernel's deciders and the dispatcher; ``evolve`` the fold; ``view`` what a seat is told;
``engine`` the typed engine a service holds; ``dealing`` and ``codec`` what their names say.
"""
