"""Friction: the analysis of a week, and its fixes staged as proposals."""
