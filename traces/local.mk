# traces/: the wave-program format (the currency between kernels/ and sim/) and recorded programs.
