"""UniSVG (placeholder until the package lands)."""
