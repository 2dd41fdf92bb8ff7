# ioctl ABI, permissions, bad input, round trips with and without headers.
tapxt abi $X
