# sim/: the cycle-level simulator, one struct and one .c/.h pair per hardware unit.
