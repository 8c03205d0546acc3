# kernels/: the layout algebra, atoms, schedules, wave-program generation and HIP emission.
