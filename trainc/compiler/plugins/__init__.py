"""Framework and gang-scheduler plugins beside their webhook rules; `registry` holds one record each, in order."""
